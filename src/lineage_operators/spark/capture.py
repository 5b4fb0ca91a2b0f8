"""Capture of every Spark read and write made during one task.

CONTRACT (implementation pending):

    capture = SparkLineageCapture(spark)   # classic SparkSession (py4j); never raises
    capture.start()                        # registers a QueryExecutionListener
    ...user code...
    result = capture.stop()                # drains the listener bus, unregisters; never raises
    result.inputs / result.outputs         # list[LineageDataset], named, de-duplicated, facets attached
    result.run_facets                      # {"processing_engine": ..., "spark_applicationDetails": ...}
    result.job_facets                      # {"sql": ...} when the task ran SQL text
    capture.snapshot()                     # same as stop()'s result, without stopping (for failures)
"""
