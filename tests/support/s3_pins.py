"""Spark's S3A connector per Hadoop version, pinned (data only; registered in tests/support/maven_jars.py).

Keyed by the Hadoop version of a pyspark line's own ``hadoop-client-api`` jar: ``hadoop-aws`` at that
version and the AWS SDK modules S3A uses, not the SDK bundles its pom names (v1 ~280 MB, v2 ~600 MB).
``group:artifact:version[:classifier]`` and, below it, its SHA-256. Left out because each pyspark line's
own jars hold them: httpclient/httpcore, commons-codec/-logging, slf4j, Jackson, joda-time and Netty
(SDK v2's ``netty-nio-client`` runs on the line's Netty).

* 3.3.4 (pyspark 3.5, SDK v1, ~6.6 MB): ``aws-java-sdk-s3``, ``-kms``, ``-core``, ``-dynamodb``,
  ``jmespath-java``, ``ion-java`` and ``jackson-dataformat-cbor`` at Spark 3.5's Jackson (2.15.2). DynamoDB
  although S3Guard is never configured: ``S3AFileSystem.initialize`` loads its exception class.
* 3.4.2 (pyspark 4.1) and 3.5.0 (pyspark 4.2+), SDK v2 (~12 MB each): ``s3``, ``s3-transfer-manager`` and
  their modules, and the analytics accelerator both declare.
* 3.4.1 (pyspark 4.0) is not pinned: SDK 2.24.6's ``s3-transfer-manager`` is not served by the registry
  this project resolves from.
"""

S3A_JARS = {
    "3.3.4": """
org.apache.hadoop:hadoop-aws:3.3.4
    53f9ae03c681a30a50aa17524bd9790ab596b28481858e54efd989a826ed3a4a
com.amazonaws:aws-java-sdk-s3:1.12.262
    a0cb7580178bc0d4d3558295a5bb890008478da8a6b3241989c71238b0ed3be5
com.amazonaws:aws-java-sdk-kms:1.12.262
    c00f5ae7b334255f661d85512e7203af9523a04fb65d0c431c2eea2003ed8ae2
com.amazonaws:aws-java-sdk-core:1.12.262
    06fed99f929c389e168278c1b111aaf1afb270d07202fbbce92e73d1e4279678
software.amazon.ion:ion-java:1.0.2
    0d127b205a1fce0abc2a3757a041748651bc66c15cf4c059bac5833b27d471a5
com.amazonaws:aws-java-sdk-dynamodb:1.12.262
    7af4ba06d0d9b3c2ab435089caecd0567810d203aa285f7aa72861f1964d442e
com.amazonaws:jmespath-java:1.12.262
    9001ea993a45d82a2d3086edcbda8a40b4e012d049a70fbf071fd329c0fbd777
com.fasterxml.jackson.dataformat:jackson-dataformat-cbor:2.15.2
    57ba89a43e631be2de67aeed846a659b15c6b82b7b254164f61bf3090ccc2ad1
""",
    "3.4.2": """
org.apache.hadoop:hadoop-aws:3.4.2
    d2d24e6b715b5656b9d238bf13b6682a07e2004dd36aad74a73aeb854319f4d9
software.amazon.awssdk:s3:2.29.52
    abaedea7e68063e9c4ab090f80d14b9884c57b50953bfe6e5acaa23025609efa
software.amazon.awssdk:aws-xml-protocol:2.29.52
    daf87b429373ad586d165003b5b1d4fe498c6472eb65ec9a9e2aa7d56f3917dd
software.amazon.awssdk:aws-query-protocol:2.29.52
    1b117672963ee5059c45f2aadb110f191b578d108d8f08d7c7a59e6c0b098a8e
software.amazon.awssdk:protocol-core:2.29.52
    7b32e41a3743b422d2edec1670f60b4c1e512fcd5ab7a53fef20742d6b9104d1
software.amazon.awssdk:arns:2.29.52
    f5a4d1d9b4e4fc63c9bda49bcf1c59d23fd876b276c6b43aaca12969337303a6
software.amazon.awssdk:profiles:2.29.52
    fef84619d101838ba45f48d0caddb09a85d9ed8bf869095bd7d2064796856cf7
software.amazon.awssdk:crt-core:2.29.52
    4e1f33de21b688695fec91b977ddfa99e9d376edcbad06a62b0c138c60b37de4
software.amazon.awssdk:http-auth:2.29.52
    d8aa3bd376aaec7196396e65fe8755f1fdd169e51357f8128ecdc7d23a687450
software.amazon.awssdk:identity-spi:2.29.52
    85104635abf9e5c044aaf7f8951b63efc2ef82051b5ee303571ee2e1fd8b46d0
software.amazon.awssdk:http-auth-spi:2.29.52
    7a2168c5a7baa856d7ae9f9c4f7522d2db9f1361108c38f5b6ece66f249e6a2d
org.reactivestreams:reactive-streams:1.0.4
    f75ca597789b3dac58f61857b9ac2e1034a68fa672db35055a8fb4509e325f28
software.amazon.awssdk:http-auth-aws:2.29.52
    7ae124e81ac0c2860bb61fdde34a388dbe823fef8509dd46a6bec805ada90308
software.amazon.awssdk:checksums:2.29.52
    bca99ff25c9b917d6be03e5dce78ad5328e7dca485e96024fa8476e4192a800a
software.amazon.awssdk:checksums-spi:2.29.52
    21193b9b648843dcaff493f0dd80abab9ee6871b203b9218120554698d8f7b8a
software.amazon.awssdk:retries-spi:2.29.52
    a4218ea742fc9e07a620629d7a258bfd92b8ea3ef75f1b99193d0898ca3efe99
software.amazon.awssdk:sdk-core:2.29.52
    ea8e9856569f85075a8a806d0481c4bd848c98b24fd6d706fc0b5883fc4604dc
software.amazon.awssdk:retries:2.29.52
    ca3752ba31399721980c6398992921ff5aa164e084b4c14484333df58c76a353
software.amazon.awssdk:auth:2.29.52
    4d8143b6198dc7a530c2ccdd813129c132b96736086c0d4fea85480b9bdbc5fe
software.amazon.awssdk:http-auth-aws-eventstream:2.29.52
    565a4aacce955c5ffaed551f6faaaa958e9e92b2f8514c8482f664edb2bab576
software.amazon.eventstream:eventstream:1.0.1
    0c37d8e696117f02c302191b8110b0d0eb20fa412fce34c3a269ec73c16ce822
software.amazon.awssdk:http-client-spi:2.29.52
    8ea61ce3b527779fbfe119e0775c4b7cfdf274a979b1e50596a634685a5b6542
software.amazon.awssdk:regions:2.29.52
    5ee0e26277c679ffa70d83923b0d5f77a53066ecde8610f28be1856947d60eaf
software.amazon.awssdk:annotations:2.29.52
    8cd8bd8afd7eca5a367f69fd87427f6d9f3e7d359962122da24d71f1963f00cd
software.amazon.awssdk:utils:2.29.52
    f150a38f2fec14ced2de6459bfe804f647c88baa573b218646ef89b436a29d42
software.amazon.awssdk:aws-core:2.29.52
    eb560c064fbaac7e2e7f4a77ac343d3083bea0d7f6e2c69ba022d3f3e859be90
software.amazon.awssdk:metrics-spi:2.29.52
    1db2e3da338148ee40a716e1733c9a5b99e9e6daa4db3aa8bd7e718adafa2510
software.amazon.awssdk:json-utils:2.29.52
    2652cdb3668311bcff6e643c8612b9fea266423ae1ce33743c84dd7f77904311
software.amazon.awssdk:third-party-jackson-core:2.29.52
    eaece3eb60beb8ec09d8a4f48d5bff4110010b03cc23688bdcf2af2eb075cac6
software.amazon.awssdk:endpoints-spi:2.29.52
    e54f246c668d70b55cffe0c8fad18d4465e74e22db75139918bd30610093d1e6
software.amazon.awssdk:apache-client:2.29.52
    c96494be30ecac6f0ab7a35fdd91a4c77ca8a5daf62f3d9d84644ef0f0524dc6
software.amazon.awssdk:netty-nio-client:2.29.52
    07238668c9cf54531ee269fd6e2a1e2650fb75d6774d401f406c2a14f26af654
software.amazon.awssdk:s3-transfer-manager:2.29.52
    0c9e654637247187a7e2494eb7a8799477a772a7d554cd3ae787cd3e3bae3c55
software.amazon.s3.analyticsaccelerator:analyticsaccelerator-s3:1.2.1
    11029552e37408e41e689b20150f4b372e0b4f232de321ccafd0fcf443cdfb5a
""",
    "3.5.0": """
org.apache.hadoop:hadoop-aws:3.5.0
    66bd9eefb938b1a1657487324b63c13df2d8b17164a1dd24e0ef37b905bc5baa
software.amazon.awssdk:s3:2.35.4
    f23532c5223be9b0bfec0d72837ed09ed34dbdf8022818ba145b20076a78b4bc
software.amazon.awssdk:aws-xml-protocol:2.35.4
    4f59176da2522c357b1993e4a890fde529f12f365795ef86269bde4a3984cd0d
software.amazon.awssdk:aws-query-protocol:2.35.4
    9b4cf9b78977cc9f5b4ceae9c435dedbde6a055a0f8d9e053eaca945715e2a9f
software.amazon.awssdk:protocol-core:2.35.4
    f2532eca6ba2142fe4821d5decb03c83a3e15dc8bfae2240e7f2efa75f9868b5
software.amazon.awssdk:arns:2.35.4
    c63cc29f76a8527e9e10b621703163df541dc5cb315508dc2898518602c75380
software.amazon.awssdk:profiles:2.35.4
    0f4ef7ca72ccd80dd49ebeaf7f3ce60a7d7a00da59a91aeeae6e91052bbacbd8
software.amazon.awssdk:crt-core:2.35.4
    2c6aaa17bf9ccbb9d962dded4351e73decb197e3c5519970e0dae17e05d3df62
software.amazon.awssdk:http-auth:2.35.4
    3ec933a06e751a05e195eb3589209e23c44e1897263b6fcae34ef4cc63cd4491
software.amazon.awssdk:identity-spi:2.35.4
    188d73db7d4e2361654bc3c5a1b3eaeb445d0500fb012cc46c5d67975adf97bf
software.amazon.awssdk:http-auth-spi:2.35.4
    4495463406bb98eb136f2c3f3604ed5f08ec9974ebc3f34f2121b20679f61d5c
org.reactivestreams:reactive-streams:1.0.4
    f75ca597789b3dac58f61857b9ac2e1034a68fa672db35055a8fb4509e325f28
software.amazon.awssdk:http-auth-aws:2.35.4
    c4acb92fdec90bfd9b67bfab8e41b69cd152c03cacc10281a8ab464791856e01
software.amazon.awssdk:checksums:2.35.4
    94464af4374d08ecf33ca06ed4d03e1615529e547726e26b56abacefbeee7948
software.amazon.awssdk:checksums-spi:2.35.4
    88b5af85ac2d3c862be8856be4e683ab31932e4a5a3c1c45af864d2671ac7cec
software.amazon.awssdk:retries-spi:2.35.4
    668638751d059c527ddd41ffa4dcebe36a7c14860ed56776df09b861c14dc7dd
software.amazon.awssdk:sdk-core:2.35.4
    fa559a4ce598852f3519c8f3b36250f583b0858a7611eedc4a81997778c617f4
software.amazon.awssdk:retries:2.35.4
    f99fb2f8c66d7e859955b3542d3af8f9de8f23a21d5e3250f0f2c5f18487e469
software.amazon.awssdk:auth:2.35.4
    6b601323004833fb4a857ffc95db4795e0e6320eb93e64b1246c655c9ff04994
software.amazon.awssdk:http-auth-aws-eventstream:2.35.4
    709107552f302be3fa9e05969a3779f5c0f07fb809e6fa1fa571a6f0c61326dd
software.amazon.eventstream:eventstream:1.0.1
    0c37d8e696117f02c302191b8110b0d0eb20fa412fce34c3a269ec73c16ce822
software.amazon.awssdk:http-client-spi:2.35.4
    728be89b2a07b595edb0adee3a2cbbbdd4cb1f4caddde0d08c3979fe2620dedb
software.amazon.awssdk:regions:2.35.4
    77eae87b34ce96ecdf916a9bc06684dbeafcb6d38ef0513285fa5d5d6d41f5ca
software.amazon.awssdk:annotations:2.35.4
    6f36bd87155d1dd85d6efbdd29e532e3759a022211feb71affebee1aa34f04b8
software.amazon.awssdk:utils:2.35.4
    642aeef536a071668f0b772f05f9d21573abf6955e7b6fb5fdb893760cca10e8
software.amazon.awssdk:aws-core:2.35.4
    fdb5fc8f1a48d97fa7d04d3460fb42f6973c7b1bbe1b9d317871ef0162bcb623
software.amazon.awssdk:utils-lite:2.35.4
    e004806def5e22ec98edc48a133ff3317166255e1ba29d93d129e9fdfa64a7be
software.amazon.awssdk:metrics-spi:2.35.4
    c2a4ee90a21081317e2e6eba0c414d05d3d518aed2f86b1c1710a7367b450487
software.amazon.awssdk:json-utils:2.35.4
    80d67a6bb3e7eb49c7d4b6e4ba4c1463ed7da0192b795158328602dc131c5ecc
software.amazon.awssdk:third-party-jackson-core:2.35.4
    32f4252c6c2df8f3a4aff885e6dc77024ad6b4cb48455d07b461ec30c41643ea
software.amazon.awssdk:endpoints-spi:2.35.4
    ef02441bda916959b8341290b49c68cc35538e1ad6f8629b75d8334dc6653e00
software.amazon.awssdk:apache-client:2.35.4
    6eade21b482724ed0a4613eaa95d20e47e7a81304bd28538ac427fece94a7740
software.amazon.awssdk:netty-nio-client:2.35.4
    b82f8b33e5c85273a47da45ede884d7ccb31c9c2f69e6910a76c5c48fa1275dc
software.amazon.awssdk:s3-transfer-manager:2.35.4
    0eec78870b3d0abc509a847072cf963cb2ae6e360dc6161a9449b3398c470476
software.amazon.s3.analyticsaccelerator:analyticsaccelerator-s3:1.3.1
    4959a9747cbb479c73c3ffbcd479bee5b014f8b2880994585a8693fb9d24675e
""",
}
