// Compiled at run time by Janino, once per JVM, by lineage_operators.spark.rdd.reader. Reads the
// files of the RDD-only jobs a capture queued, all jobs in one call: most such jobs (listings, counts
// of parallelized data) touch no file, and walking each one's RDD lineage from Python cost a dozen py4j
// round trips per job on the task's thread. Same rules as the Python walk in
// lineage_operators.spark.rdd.sources (and rdd._output_dir), which stays the fallback.
// Janino compiles a subset of Java: no generics, lambdas or enhanced for loops here.
package lineage_operators;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;

import org.apache.spark.Dependency;
import org.apache.spark.rdd.HadoopRDD;
import org.apache.spark.rdd.NewHadoopRDD;
import org.apache.spark.rdd.ParallelCollectionRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.scheduler.ActiveJob;
import org.apache.spark.scheduler.ResultStage;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.Stage;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.FileScanRDD;
import org.apache.spark.sql.execution.datasources.PartitionedFile;

public class RddJobReader {
    private static final String INPUT_DIR = "mapreduce.input.fileinputformat.inputdir";
    private static final String OUTPUT_DIR = "mapreduce.output.fileoutputformat.outputdir";
    private static final String TAGS = "spark.job.tags";
    private static final String[] WRITE_CONFIGS = new String[] {
        "org.apache.spark.internal.io.HadoopMapRedWriteConfigUtil",
        "org.apache.spark.internal.io.HadoopMapReduceWriteConfigUtil"
    };
    /** Between the fields of a job's record, between its inputs, between records. */
    private static final String FIELD = "\u001d";
    private static final String ITEM = "\u001e";
    private static final String RECORD = "\u001c";
    /** Elements of a parallelized collection looked at, at most (a schema merge lists its files). */
    private static final int MAX_FILES = 1000;

    /**
     * Takes every entry of the watcher's {@code queue} (each a list of the job-start event and the
     * scheduler's {@code Option<ActiveJob>}) and reads them, in one call: the reader thread asks
     * after each execution, and most answers are "nothing queued". "" when the queue was empty;
     * else the number of entries, then one record per entry, in order, separated as above: "-" and
     * the job id when the job ended before it could be read, "!" and the job id when reading it
     * failed; "0" when it reads and writes no file; else "1", the job id, its input items
     * (Hadoop's raw input-dir value, or a directory of a file scan), its output directory ("" if
     * none) and its tags (the raw "spark.job.tags" property, "" if none).
     */
    public String drain(java.util.concurrent.BlockingQueue queue, int maxDepth) {
        if (queue.isEmpty()) {
            return "";
        }
        ArrayList items = new ArrayList();
        int count = queue.drainTo(items);
        if (count == 0) {
            return "";
        }
        StringBuilder out = new StringBuilder().append(count);
        for (int i = 0; i < items.size(); i++) {
            out.append(RECORD);
            List item = (List) items.get(i);
            SparkListenerJobStart event = (SparkListenerJobStart) item.get(0);
            try {
                out.append(record(event, (scala.Option) item.get(1), maxDepth));
            } catch (Exception e) {
                out.append("!").append(event.jobId()); // one job that cannot be read, not the others
            }
        }
        return out.toString();
    }

    private String record(SparkListenerJobStart event, scala.Option active, int maxDepth) {
        if (active.isEmpty()) {
            return "-" + event.jobId();
        }
        Stage stage = ((ActiveJob) active.get()).finalStage();
        ArrayList inputs = sources(stage.rdd(), maxDepth);
        String output = outputDir(stage);
        if (inputs.isEmpty() && output == null) {
            return "0";
        }
        StringBuilder out = new StringBuilder("1").append(event.jobId()).append(FIELD);
        for (int j = 0; j < inputs.size(); j++) {
            if (j > 0) {
                out.append(ITEM);
            }
            out.append((String) inputs.get(j));
        }
        String tags = event.properties() == null ? null : event.properties().getProperty(TAGS);
        return out.append(FIELD).append(output == null ? "" : output)
            .append(FIELD).append(tags == null ? "" : tags).toString();
    }

    /** Input items of the RDD and everything it depends on, breadth first, each RDD once. */
    private ArrayList sources(RDD root, int maxDepth) {
        LinkedHashSet found = new LinkedHashSet();
        IdentityHashMap seen = new IdentityHashMap();
        ArrayList level = new ArrayList();
        level.add(root);
        seen.put(root, Boolean.TRUE);
        for (int depth = 0; depth < maxDepth && !level.isEmpty(); depth++) {
            ArrayList next = new ArrayList();
            for (int i = 0; i < level.size(); i++) {
                RDD rdd = (RDD) level.get(i);
                source(rdd, found);
                scala.collection.Iterator deps = rdd.dependencies().iterator();
                while (deps.hasNext()) {
                    RDD parent = ((Dependency) deps.next()).rdd();
                    if (seen.put(parent, Boolean.TRUE) == null) {
                        next.add(parent);
                    }
                }
            }
            level = next;
        }
        return new ArrayList(found);
    }

    private void source(RDD rdd, LinkedHashSet found) {
        String dirs = null;
        if (rdd instanceof HadoopRDD) {
            dirs = ((HadoopRDD) rdd).getJobConf().get(INPUT_DIR);
        } else if (rdd instanceof NewHadoopRDD) {
            dirs = ((NewHadoopRDD) rdd).getConf().get(INPUT_DIR);
        } else if (rdd instanceof FileScanRDD) {
            scala.collection.Iterator partitions = ((FileScanRDD) rdd).filePartitions().iterator();
            while (partitions.hasNext()) {
                PartitionedFile[] files = ((FilePartition) partitions.next()).files();
                for (int i = 0; i < files.length; i++) {
                    found.add(files[i].toPath().getParent().toString());
                }
            }
        }
        if (dirs != null && dirs.length() > 0) {
            found.add(dirs);
        }
        if (rdd instanceof ParallelCollectionRDD) {
            fileParents((ParallelCollectionRDD) rdd, found);
        }
    }

    /**
     * The folders of the files a Parquet or ORC schema merge reads footers of: Spark parallelizes
     * (path, length) pairs for it. Any other collection (PySpark's pickled batches) stops at its
     * first element.
     */
    private void fileParents(ParallelCollectionRDD rdd, LinkedHashSet found) {
        Object data;
        try {
            Field field = ParallelCollectionRDD.class.getDeclaredField("data");
            field.setAccessible(true);
            data = field.get(rdd);
        } catch (Exception e) {
            return;
        }
        if (!(data instanceof scala.collection.Seq)) {
            return;
        }
        scala.collection.Iterator items = ((scala.collection.Seq) data).iterator();
        for (int n = 0; n < MAX_FILES && items.hasNext(); n++) {
            Object item = items.next();
            if (!(item instanceof scala.Tuple2) || !(((scala.Tuple2) item)._1() instanceof String)) {
                return;
            }
            String file = (String) ((scala.Tuple2) item)._1();
            int slash = file.lastIndexOf('/');
            if (slash <= 0) {
                return;
            }
            found.add(file.substring(0, slash));
        }
    }

    /** The output directory of a Hadoop write job, from the write configuration its function holds. */
    private String outputDir(Stage stage) {
        if (!(stage instanceof ResultStage)) {
            return null;
        }
        Object func = ((ResultStage) stage).func();
        try {
            Field[] fields = func.getClass().getDeclaredFields();
            for (int i = 0; i < fields.length; i++) {
                if (fields[i].getType().isPrimitive()) {
                    continue;
                }
                fields[i].setAccessible(true);
                Object value = fields[i].get(func);
                if (value == null || !isWriteConfig(value.getClass().getName())) {
                    continue;
                }
                Field confField = value.getClass().getDeclaredField("conf");
                confField.setAccessible(true);
                Object holder = confField.get(value);
                Object conf = holder.getClass().getMethod("value", new Class[0]).invoke(holder, new Object[0]);
                String out = ((org.apache.hadoop.conf.Configuration) conf).get(OUTPUT_DIR);
                return out == null || out.length() == 0 ? null : out;
            }
        } catch (Exception e) {
            return null;
        }
        return null;
    }

    private static boolean isWriteConfig(String name) {
        for (int i = 0; i < WRITE_CONFIGS.length; i++) {
            if (WRITE_CONFIGS[i].equals(name)) {
                return true;
            }
        }
        return false;
    }
}
