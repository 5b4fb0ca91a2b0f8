// Compiled at run time by Janino, once per JVM, by lineage_operators.spark.listen.execution_ids, on Spark
// lines without QueryExecution.queryId (before 4.2). A SparkListener that remembers, for each SQL
// execution that ended, the id of its QueryExecution: the key joining what the query listener saw
// (a QueryExecution) to Spark's SQL status store (an execution id). Janino compiles a subset of
// Java: no generics here.
package lineage_operators;

import java.util.Iterator;
import java.util.LinkedHashMap;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd;

public class ExecutionIds extends SparkListener {
    /** Executions remembered at most (Spark's status store keeps 1,000 by default). */
    private static final int LIMIT = 10000;

    /** Execution id (Long) -> "qe:" + QueryExecution id, oldest first. */
    private final LinkedHashMap keys = new LinkedHashMap();

    public void onOtherEvent(SparkListenerEvent event) {
        if (!(event instanceof SparkListenerSQLExecutionEnd)) {
            return;
        }
        SparkListenerSQLExecutionEnd end = (SparkListenerSQLExecutionEnd) event;
        QueryExecution qe = end.qe();
        if (qe == null) {
            return;
        }
        synchronized (keys) {
            keys.put(Long.valueOf(end.executionId()), "qe:" + qe.id());
            if (keys.size() > LIMIT) {
                Iterator oldest = keys.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
        }
    }

    /** The key of an execution id (a Long), or null when its end was not seen. */
    public Object keyOf(Object executionId) {
        synchronized (keys) {
            return keys.get(executionId);
        }
    }
}
