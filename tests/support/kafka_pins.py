"""Kafka's broker and Spark's Kafka connector, pinned (data only; registered in tests/support/maven_jars.py).

``group:artifact:version[:classifier]`` and, below it, its SHA-256, as a throwaway pom with
``dependency:copy-dependencies`` resolved them.

* The broker, ``org.apache.kafka:kafka_2.13:4.4.0`` with every runtime dependency (~43 MB, 45 jars),
  plus ``log4j-slf4j-impl`` (Kafka logs through SLF4J 1.7; without a binding its log is silent, and a
  broker that fails to start says nothing). It runs in a JVM of its own: its Scala 2.13 and
  ``kafka-clients`` 4.4 never meet Spark's.
* Spark's source and sink per pyspark line, keyed by that line: ``spark-sql-kafka-0-10``,
  ``spark-token-provider-kafka-0-10``, ``kafka-clients`` and ``commons-pool2`` at the versions the
  connector's pom names. Left out because every pyspark line's own jars hold them: Scala, SLF4J,
  lz4/snappy/zstd, the Hadoop client. The registry this project resolves from has no connector for some
  pyspark releases, so a line runs the newest connector of its own Spark line or the newest release:
  pyspark 3.5.9 with 3.5.7 (no 3.5.8/3.5.9 for Scala 2.12 there), pyspark 4.3.0 with 4.2.0 (no 4.3 yet).
"""

KAFKA_VERSION = "4.4.0"
KAFKA_BROKER_JARS = """
org.apache.kafka:kafka_2.13:4.4.0
    76d3314f873571677ff98620ab9a431e508e3687f921a3df4f70d692a970475e
org.apache.kafka:kafka-clients:4.4.0
    1ab07317eb6633241392449d329dbdc5d9251e6ffc4926860f42dd966e88bdf9
com.github.luben:zstd-jni:1.5.7-17
    c9043e2da8a16c13b6cd7661a5cb56685a573c3546ef4bd0ead67b0b67c2e107
at.yawk.lz4:lz4-java:1.11.2
    8a7458657938e9b692224db83aac458c13abd7a59ab75c3d3b08bd2233a646a2
org.xerial.snappy:snappy-java:1.1.10.7
    4c766cb3f855415ee734b2392949a0b6f12a60879334a74518deaf6270d32e36
org.scala-lang:scala-library:2.13.18
    4e85d96ff7bc7dc627985523c3541b9917aaa08e956391380c42db21a2c4e5a0
org.apache.kafka:kafka-server-common:4.4.0
    e50931831a27a2f3eb6cf74e8d63cc325b4e98656f30e94f8829297951ca5080
org.pcollections:pcollections:4.0.2
    2bbeef5797a241300c4f7513cd546239629ed7deda4fc0c31df90bb95f5f13ef
org.apache.kafka:kafka-group-coordinator-api:4.4.0
    bf11d7586c7363ba72a16ac5ef80c65365de9166469f7f6fc4ac5d2e0a98213a
org.apache.kafka:kafka-group-coordinator:4.4.0
    3fc830ace54f6a13f9f536bc0564bf39a68797365a4c4b194bd7db4fb893b2bc
com.dynatrace.hash4j:hash4j:0.22.0
    23028a3fd006e530bf495f551083208187cafd8f80624d048eba56442f16a50e
org.apache.kafka:kafka-transaction-coordinator:4.4.0
    1d5324d59776d6b7f324cfdc87647b1e88f9823332201c0324e7ae9f210d915d
org.apache.kafka:kafka-metadata:4.4.0
    6c52de74ecd670332e1e1324f5d40311275ac49b22699b6722e5fb07dd266fcb
org.apache.kafka:kafka-storage-api:4.4.0
    edd47a86cdce283fc15d033090417a5dec29642eb807713f2e807e3c46b5ca46
org.apache.kafka:kafka-tools-api:4.4.0
    348b63a7d22739703ad34613a1154702568d462c3a8adb1dd655482251f4e529
org.apache.kafka:kafka-raft:4.4.0
    687f278ce5d82b7f53644643e21e1a7452530f202826108990f0fe4f3d334d4f
org.apache.kafka:kafka-storage:4.4.0
    9eaa4dafacc251080ece0efa8511283da5de6931e843457f6af87f02f9b50039
com.github.ben-manes.caffeine:caffeine:3.2.0
    ec411dfdf0c03f25218648ce89861630b71680e5858a9a7278ebac8e55cab3d7
org.jspecify:jspecify:1.0.0
    1fad6e6be7557781e4d33729d49ae1cdc8fdda6fe477bb0cc68ce351eafdfbab
org.apache.kafka:kafka-server:4.4.0
    5f5456c2976203525080220212639f7033274b94458ceabf44197f4800bd615c
commons-validator:commons-validator:1.10.1
    ed74711a78d793ca37f6075e4a1e93d107233dfd20d0bb17e32bad88d38e56aa
commons-beanutils:commons-beanutils:1.11.0
    9e44ba68ec9a3f21286fa2a8bbb003b735c0f69101bb43144b79f4f8aaa74709
commons-digester:commons-digester:2.1
    e0b2b980a84fc6533c5ce291f1917b32c507f62bcad64198fff44368c2196a3d
commons-logging:commons-logging:1.3.5
    6d7a744e4027649fbb50895df9497d109f98c766a637062fe8d2eabbb3140ba4
commons-collections:commons-collections:3.2.2
    eeeae917917144a68a741d4c0dff66aa5c5c5fd85593ff217bced3fc8ca783b8
org.apache.logging.log4j:log4j-api:2.25.5
    64777f73ea0b3104c04eb82befbdccc30a425a19e83ad06cb2f93aa303511863
org.apache.logging.log4j:log4j-core:2.25.5
    050c4f85deb48b055e9c041ac39043fbb79ce477841a11a1eb2969c86c6a0072
org.apache.kafka:kafka-coordinator-common:4.4.0
    e380267a17981edbadaa2e2e785f18dc1b5671abf2d1084eb7da06a765c71d0c
org.hdrhistogram:HdrHistogram:2.2.2
    22d1d4316c4ec13a68b559e98c8256d69071593731da96136640f864fa14fad8
org.apache.kafka:kafka-share-coordinator:4.4.0
    6969a7961ca98d37a039bbe0af0fe761d6b0dd07ca9666802f47821167afbb6e
net.sourceforge.argparse4j:argparse4j:0.7.0
    65ceb669d88f63306c680f8088bbf765bbca72d288a61a03703000076c3d3f56
com.fasterxml.jackson.core:jackson-databind:2.21.7
    1290c2795e93e8a6861a6c4d9ff0d844d32f5ea178362cb2721edf5561e828b1
com.fasterxml.jackson.core:jackson-annotations:2.21
    53ca085f4a150f703f49e1aabd935bd03b43e1ea3d55d135438292af22cef56b
com.fasterxml.jackson.core:jackson-core:2.21.7
    8c5623b98f32d5f7e1287ff61ed50e08ab7b11381e991fff89327faabba42261
com.fasterxml.jackson.datatype:jackson-datatype-jdk8:2.21.7
    b8f62f98363ed9aa259b3a479a64fcbe7e081158a8bec6733972e900d12f4e47
com.fasterxml.jackson.dataformat:jackson-dataformat-yaml:2.21.7
    df2b3e6a194181dc067b7211d750926b4ae9e4f3c892a0005b8219a9b59be681
org.yaml:snakeyaml:2.5
    e6682acf1ace77508ef13649cbf4f8d09d2cf5457bdb61d25ffb6ac0233d78dd
net.sf.jopt-simple:jopt-simple:5.0.4
    df26cc58f235f477db07f753ba5a3ab243ebe5789d9f89ecf68dd62ea9a66c28
org.bitbucket.b_c:jose4j:0.9.6
    7314af50cde9c99e8eaf43eee617a23edcc6bb43036221064355094999d837ef
com.yammer.metrics:metrics-core:2.2.0
    6b7a14a6f34c10f8683f7b5e2f39df0f07b58c7dff0e468ebbc713905c46979c
org.scala-lang:scala-reflect:2.13.18
    6935ff1982b2ac93d695f15aa66921be2f602921277afe002f018fd8c7d6e29b
com.typesafe.scala-logging:scala-logging_2.13:3.9.6
    0ad0c3f4d89d538b3b6c300158555e266aa69cf1b5f6522aba8b5bad238eb994
org.slf4j:slf4j-api:1.7.36
    d3ef575e3e4979678dc01bf1dcce51021493b4d11fb7f1be8ad982877c16a1c0
com.google.re2j:re2j:1.8
    7b52c72156dd7f98b3237a5b35c1d34fba381b21048c89208913ad80a45dfbd7
org.apache.logging.log4j:log4j-slf4j-impl:2.25.5
    3d25b926bc6025c47ec010459749c12aa66b9d5537ba1922d67d89a098a66607
"""

SPARK_KAFKA_JARS = {
    "3.5": """
org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.7
    184f8bd4a3cd22299c49090d88b894f81fd7546b4ee64879519a0d76a685dbb8
org.apache.spark:spark-token-provider-kafka-0-10_2.12:3.5.7
    9701914db5c6d09628b58d2d2c1ccd2c9ea28f32f83dd6cb21f98b8237531ff4
org.apache.kafka:kafka-clients:3.4.1
    9d0a9058c8ede79db6e54ae378ed16fe8d1bead2894635a4aa6aa0b7981668c6
org.apache.commons:commons-pool2:2.11.1
    ea0505ee7515e58b1ac0e686e4d1a5d9f7d808e251a61bc371aa0595b9963f83
""",
    "4.3": """
org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0
    64539c45e5d39f7ddb747312c239f38f5208d08c1a0ddf7d70beb2fbd9373705
org.apache.spark:spark-token-provider-kafka-0-10_2.13:4.2.0
    641c7947afc8aa1189e433b7c2d305293993c8691bc1c2062d6d4f513b12518c
org.apache.kafka:kafka-clients:3.9.2
    014b4ef36884478a932641818b080c36a8f8e2e92dc771e800c9d2694f4f83d8
org.apache.commons:commons-pool2:2.13.1
    f77a5060d6936a9144023584232f9de3f2248f1abfe156e9d31795f18770674f
""",
}
