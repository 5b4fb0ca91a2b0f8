"""Names of the Spark classes plan reading dispatches on (the same on every supported Spark line;
what differs per line is in :mod:`lineage_operators.spark.jvm.spark_line`)."""

from __future__ import annotations

_DS = "org.apache.spark.sql.execution.datasources"
_CMD = "org.apache.spark.sql.execution.command"
_LOGICAL = "org.apache.spark.sql.catalyst.plans.logical"
_HIVE = "org.apache.spark.sql.hive.execution"

LR = f"{_DS}.LogicalRelation"
HFR = f"{_DS}.HadoopFsRelation"
FILE_INDEX = f"{_DS}.FileIndex"
PAFI = f"{_DS}.PartitioningAwareFileIndex"
JDBC_REL = f"{_DS}.jdbc.JDBCRelation"
JDBC_OPTS = f"{_DS}.jdbc.JDBCOptions"
CI_MAP = "org.apache.spark.sql.catalyst.util.CaseInsensitiveMap"
HIVE_REL = "org.apache.spark.sql.catalyst.catalog.HiveTableRelation"
DSV2_REL = f"{_DS}.v2.DataSourceV2Relation"
FILE_TABLE = f"{_DS}.v2.FileTable"
V1_TABLE = "org.apache.spark.sql.connector.catalog.V1Table"
TABLE = "org.apache.spark.sql.connector.catalog.Table"
CATALOG_PLUGIN = "org.apache.spark.sql.connector.catalog.CatalogPlugin"
IDENTIFIER = "org.apache.spark.sql.connector.catalog.Identifier"
CATALOG_TABLE = "org.apache.spark.sql.catalyst.catalog.CatalogTable"
STORAGE = "org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat"
TABLE_ID = "org.apache.spark.sql.catalyst.TableIdentifier"
QUERY_PLAN = "org.apache.spark.sql.catalyst.plans.QueryPlan"
TREE_NODE = "org.apache.spark.sql.catalyst.trees.TreeNode"
STRUCT = "org.apache.spark.sql.types.StructType"
ORIGIN = "org.apache.spark.sql.catalyst.trees.Origin"
OPTION = "scala.Option"
REGISTER = "org.apache.spark.sql.sources.DataSourceRegister"
RESOLVED_ID = "org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier"

INSERT_HADOOP = f"{_DS}.InsertIntoHadoopFsRelationCommand"
CTAS_DS = f"{_CMD}.CreateDataSourceTableAsSelectCommand"
CREATE_DS = f"{_CMD}.CreateDataSourceTableCommand"
CREATE_TABLE = f"{_CMD}.CreateTableCommand"
SAVE_INTO = f"{_DS}.SaveIntoDataSourceCommand"
INSERT_DS = f"{_DS}.InsertIntoDataSourceCommand"
INSERT_DS_DIR = f"{_CMD}.InsertIntoDataSourceDirCommand"
LOAD_DATA = f"{_CMD}.LoadDataCommand"
TRUNCATE = f"{_CMD}.TruncateTableCommand"
CREATE_LIKE = f"{_CMD}.CreateTableLikeCommand"
RENAME = f"{_CMD}.AlterTableRenameCommand"
DROP_V1 = f"{_CMD}.DropTableCommand"
DROP_V2 = f"{_LOGICAL}.DropTable"
INSERT_HIVE = f"{_HIVE}.InsertIntoHiveTable"
CTAS_HIVE = f"{_HIVE}.CreateHiveTableAsSelectCommand"
CTAS_HIVE_OPT = f"{_HIVE}.OptimizedCreateHiveTableAsSelectCommand"
INSERT_HIVE_DIR = f"{_HIVE}.InsertIntoHiveDirCommand"
#: A micro-batch of a stream writing to a V1 sink (a file sink, ``foreachBatch``...): its plan's root.
STREAM_WRITE_V1 = "org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1"
#: A micro-batch of a stream writing to a V2 sink (Kafka's...): its analyzed plan's root.
STREAM_WRITE_V2 = "org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSource"
#: The file sink's simple class name (its package moved in Spark 4.1: ``streaming.sinks``).
FILE_STREAM_SINK = "FileStreamSink"
V2_WRITES = (
    f"{_LOGICAL}.AppendData",
    f"{_LOGICAL}.OverwriteByExpression",
    f"{_LOGICAL}.OverwritePartitionsDynamic",
)
V2_CREATES = (
    f"{_LOGICAL}.CreateTableAsSelect",
    f"{_LOGICAL}.ReplaceTableAsSelect",
    f"{_LOGICAL}.CreateTable",
    f"{_LOGICAL}.ReplaceTable",
)
#: Commands whose query is an inner child (not a child): its leaves are inputs too.
_INNER_QUERY = (SAVE_INTO, INSERT_DS, INSERT_DS_DIR, CTAS_DS, f"{_CMD}.SaveAsV1TableCommand", *V2_CREATES)
_V2_CREATE_LIFECYCLE = {
    f"{_LOGICAL}.CreateTableAsSelect": "CREATE",
    f"{_LOGICAL}.CreateTable": "CREATE",
    f"{_LOGICAL}.ReplaceTableAsSelect": "OVERWRITE",
    f"{_LOGICAL}.ReplaceTable": "OVERWRITE",
}

_SESSION_CATALOG = "spark_catalog"
