"""Names of the Spark classes the classic readers dispatch on (plan reading, table formats, statistics,
attribution), each defined once; the same on every supported Spark line (what differs per line is in
:mod:`lineage_operators.spark.jvm.spark_line`)."""

from __future__ import annotations

DS = "org.apache.spark.sql.execution.datasources"
CMD = "org.apache.spark.sql.execution.command"
LOGICAL = "org.apache.spark.sql.catalyst.plans.logical"
HIVE = "org.apache.spark.sql.hive.execution"

LR = f"{DS}.LogicalRelation"
HFR = f"{DS}.HadoopFsRelation"
FILE_INDEX = f"{DS}.FileIndex"
PAFI = f"{DS}.PartitioningAwareFileIndex"
JDBC_REL = f"{DS}.jdbc.JDBCRelation"
JDBC_OPTS = f"{DS}.jdbc.JDBCOptions"
CI_MAP = "org.apache.spark.sql.catalyst.util.CaseInsensitiveMap"
HIVE_REL = "org.apache.spark.sql.catalyst.catalog.HiveTableRelation"
DSV2_REL = f"{DS}.v2.DataSourceV2Relation"
FILE_TABLE = f"{DS}.v2.FileTable"
V1_TABLE = "org.apache.spark.sql.connector.catalog.V1Table"
TABLE = "org.apache.spark.sql.connector.catalog.Table"
CATALOG_PLUGIN = "org.apache.spark.sql.connector.catalog.CatalogPlugin"
IDENTIFIER = "org.apache.spark.sql.connector.catalog.Identifier"
CATALOG_TABLE = "org.apache.spark.sql.catalyst.catalog.CatalogTable"
STORAGE = "org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat"
TABLE_ID = "org.apache.spark.sql.catalyst.TableIdentifier"
HADOOP_PATH = "org.apache.hadoop.fs.Path"
QUERY_PLAN = "org.apache.spark.sql.catalyst.plans.QueryPlan"
TREE_NODE = "org.apache.spark.sql.catalyst.trees.TreeNode"
STRUCT = "org.apache.spark.sql.types.StructType"
ORIGIN = "org.apache.spark.sql.catalyst.trees.Origin"
OPTION = "scala.Option"
REGISTER = "org.apache.spark.sql.sources.DataSourceRegister"
RESOLVED_ID = "org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier"
RESOLVED_TABLE = "org.apache.spark.sql.catalyst.analysis.ResolvedTable"
#: A SQL execution's entry in Spark's SQL status store.
SQL_EXECUTION_UI_DATA = "org.apache.spark.sql.execution.ui.SQLExecutionUIData"

INSERT_HADOOP = f"{DS}.InsertIntoHadoopFsRelationCommand"
CTAS_DS = f"{CMD}.CreateDataSourceTableAsSelectCommand"
CREATE_DS = f"{CMD}.CreateDataSourceTableCommand"
CREATE_TABLE = f"{CMD}.CreateTableCommand"
SAVE_INTO = f"{DS}.SaveIntoDataSourceCommand"
INSERT_DS = f"{DS}.InsertIntoDataSourceCommand"
INSERT_DS_DIR = f"{CMD}.InsertIntoDataSourceDirCommand"
LOAD_DATA = f"{CMD}.LoadDataCommand"
TRUNCATE = f"{CMD}.TruncateTableCommand"
CREATE_LIKE = f"{CMD}.CreateTableLikeCommand"
RENAME = f"{CMD}.AlterTableRenameCommand"
DROP_V1 = f"{CMD}.DropTableCommand"
DROP_V2 = f"{LOGICAL}.DropTable"
INSERT_HIVE = f"{HIVE}.InsertIntoHiveTable"
CTAS_HIVE = f"{HIVE}.CreateHiveTableAsSelectCommand"
CTAS_HIVE_OPT = f"{HIVE}.OptimizedCreateHiveTableAsSelectCommand"
INSERT_HIVE_DIR = f"{HIVE}.InsertIntoHiveDirCommand"
#: A micro-batch of a stream writing to a V1 sink (a file sink, ``foreachBatch``...): its plan's root.
STREAM_WRITE_V1 = "org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1"
#: A micro-batch of a stream writing to a V2 sink (Kafka's...): its analyzed plan's root.
STREAM_WRITE_V2 = "org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSource"
#: The file sink's simple class name (its package moved in Spark 4.1: ``streaming.sinks``).
FILE_STREAM_SINK = "FileStreamSink"
V2_WRITES = (
    f"{LOGICAL}.AppendData",
    f"{LOGICAL}.OverwriteByExpression",
    f"{LOGICAL}.OverwritePartitionsDynamic",
)
V2_CREATES = (
    f"{LOGICAL}.CreateTableAsSelect",
    f"{LOGICAL}.ReplaceTableAsSelect",
    f"{LOGICAL}.CreateTable",
    f"{LOGICAL}.ReplaceTable",
)
#: Commands whose query is an inner child (not a child): its leaves are inputs too.
INNER_QUERY = (SAVE_INTO, INSERT_DS, INSERT_DS_DIR, CTAS_DS, f"{CMD}.SaveAsV1TableCommand", *V2_CREATES)
V2_CREATE_LIFECYCLE = {
    f"{LOGICAL}.CreateTableAsSelect": "CREATE",
    f"{LOGICAL}.CreateTable": "CREATE",
    f"{LOGICAL}.ReplaceTableAsSelect": "OVERWRITE",
    f"{LOGICAL}.ReplaceTable": "OVERWRITE",
}
