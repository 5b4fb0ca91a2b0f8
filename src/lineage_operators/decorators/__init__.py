"""TaskFlow decorators; ``@task.lineage_pyspark`` is registered through the package's provider info."""
