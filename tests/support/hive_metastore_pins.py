"""The Hive standalone metastore 3.1.3 and what it needs beside its distribution, pinned (data only;
registered in tests/support/maven_jars.py).

Why 3.1.3 and not 4.0.1: pyspark's built-in Hive client (hive-metastore 2.3.9 on pyspark 3.5, 2.3.10 on
4.x) reads a table with the Thrift call ``get_table(db, table)``; the 4.0.1 server's Thrift interface no
longer has that call (only ``get_table_req``), so every table lookup of a Spark session with Hive support
fails against it. 3.1.3 still serves the old calls; it is the newest release line that does.

Why the distribution archive (``hive-standalone-metastore:3.1.3:tar.gz:bin``, 27 MB): it is the server's
own runtime classpath (``lib/``, 39 jars, as the Hive project ships it) and holds the schema tool's SQL
scripts (``scripts/metastore/upgrade/<db>/``), which no jar carries. The archive expects a Hadoop install
beside it (its launcher runs ``hadoop jar``): :data:`HIVE_METASTORE_JARS` stands in for that install with
Hadoop's shaded client (``hadoop-client-api`` and ``-runtime`` 3.3.6: ``Configuration``, ``FileSystem``,
``UserGroupInformation``, their third-party classes relocated inside) plus the few libraries a Hadoop
install puts on the classpath that the metastore's own classes call (found by listing the classes its jar
refers to that neither ``lib/`` nor the Hadoop client holds: commons-cli for the server's options,
slf4j-api for its logging, commons-logging, -codec, -collections, -io and Jackson 1 for its utilities).
"""

HIVE_METASTORE_VERSION = "3.1.3"
#: group, artifact, version, SHA-256, classifier, extension (an :class:`~tests.support.maven_jars.Artifact`)
HIVE_METASTORE_DIST = (
    "org.apache.hive",
    "hive-standalone-metastore",
    HIVE_METASTORE_VERSION,
    "83ddf76717eeb789091d845c069a631c25cad561c3d31ec0843a1ddf21f29409",
    "bin",
    "tar.gz",
)
#: The archive's top folder once unpacked.
HIVE_METASTORE_DIST_ROOT = f"apache-hive-metastore-{HIVE_METASTORE_VERSION}-bin"
HIVE_METASTORE_MAIN = "org.apache.hadoop.hive.metastore.HiveMetaStore"
HIVE_SCHEMA_TOOL_MAIN = "org.apache.hadoop.hive.metastore.tools.MetastoreSchemaTool"

HIVE_METASTORE_JARS = """
org.apache.hadoop:hadoop-client-api:3.3.6
    f3d2347a6e1c6885d5bcfd4f60c3ac3810ec11068fc161e04329baabf412d963
org.apache.hadoop:hadoop-client-runtime:3.3.6
    15f01bc804294df06d2effc87de363a83cf589f50558bdbf48f72541ad8de854
org.slf4j:slf4j-api:1.7.36
    d3ef575e3e4979678dc01bf1dcce51021493b4d11fb7f1be8ad982877c16a1c0
commons-cli:commons-cli:1.2
    e7cd8951956d349b568b7ccfd4f5b2529a8c113e67c32b028f52ffda371259d9
commons-logging:commons-logging:1.1.3
    70903f6fc82e9908c8da9f20443f61d90f0870a312642991fe8462a0b9391784
commons-codec:commons-codec:1.15
    b3e9f6d63a790109bf0d056611fbed1cf69055826defeb9894a71369d246ed63
commons-collections:commons-collections:3.2.2
    eeeae917917144a68a741d4c0dff66aa5c5c5fd85593ff217bced3fc8ca783b8
commons-io:commons-io:2.11.0
    961b2f6d87dbacc5d54abf45ab7a6e2495f89b75598962d8c723cea9bc210908
org.codehaus.jackson:jackson-core-asl:1.9.13
    440a9cb5ca95b215f953d3a20a6b1a10da1f09b529a9ddea5f8a4905ddab4f5a
org.codehaus.jackson:jackson-mapper-asl:1.9.13
    74e7a07a76f2edbade29312a5a2ebccfa019128bc021ece3856d76197e9be0c2
"""

#: S3A for the server (tests/hive's database on S3): the metastore itself creates a database's and a
#: managed table's folder (``Warehouse.mkdirs`` at ``create_database``, ``create_table``,
#: ``add_partition``), so it needs a ``FileSystem`` for ``s3a://`` as much as Spark does. ``hadoop-aws`` at
#: the server's Hadoop client (3.3.6) and the AWS SDK v1 modules its pom's bundle stands for (1.12.367; the
#: bundle is ~280 MB), their libraries at the versions the SDK's pom names, the CBOR format at ``lib/``'s
#: Jackson (2.12). No DynamoDB: 3.3.6's S3A no longer refers to S3Guard's table. They go ahead of ``lib/``
#: on the classpath: httpclient 4.5 needs httpcore 4.4.13, not ``lib/``'s 4.4.1.
HIVE_METASTORE_S3A_JARS = """
org.apache.hadoop:hadoop-aws:3.3.6
    fba9eb73e6f0f5458355627fe095f5124705d4048551f4d6aa4084777b824c13
com.amazonaws:aws-java-sdk-s3:1.12.367
    d11675bda17b356d1ce59983277d83a0ab31ce817aab8ce2b5032c458389147e
com.amazonaws:aws-java-sdk-kms:1.12.367
    cf40872de3065ec113e55a9df0239020db73d62801cfd4ae572c6919b9857d33
com.amazonaws:aws-java-sdk-core:1.12.367
    f41709853a5607cdbfc52df57e3e0ef694da3da956970086583a3e1080cfc91a
com.amazonaws:jmespath-java:1.12.367
    2044040cf0e1a06a6bdb9e6b83996a601e14ffef2c12ec682f94755283365092
software.amazon.ion:ion-java:1.0.2
    0d127b205a1fce0abc2a3757a041748651bc66c15cf4c059bac5833b27d471a5
com.fasterxml.jackson.dataformat:jackson-dataformat-cbor:2.12.6
    cfa008d15f052e69221e8c3193056ff95c3c594271321ccac8d72dc1a770619c
org.apache.httpcomponents:httpclient:4.5.13
    6fe9026a566c6a5001608cf3fc32196641f6c1e5e1986d1037ccdbd5f31ef743
org.apache.httpcomponents:httpcore:4.4.13
    e06e89d40943245fcfa39ec537cdbfce3762aecde8f9c597780d2b00c2b43424
joda-time:joda-time:2.12.7
    385282b005818cfaccdbe8bd2429811e7e641782f2b88932a6b8ff51d668f616
"""
