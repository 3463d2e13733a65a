package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.hdrCount;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.props;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.run;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.summary;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * YCSB itself (through fleetbench's Launcher, as the loader agent starts it) loads a composite-key table in batches and
 * runs a read/query mix on it: the queries are measured as QUERY like YCSB's own operations (summary, HDR logs).
 */
class QueryYcsbEndToEndTest {
  @TempDir
  Path dir;

  @Test
  void loadInKeyOrderThenQueryMix() throws Exception {
    try (LocalDynamo local = LocalDynamo.start()) {
      local.admin().createTable(r -> r.tableName("usertable")
          .attributeDefinitions(
              AttributeDefinition.builder().attributeName("p").attributeType(ScalarAttributeType.S).build(),
              AttributeDefinition.builder().attributeName("s").attributeType(ScalarAttributeType.S).build())
          .keySchema(KeySchemaElement.builder().attributeName("p").keyType(KeyType.HASH).build(),
              KeySchemaElement.builder().attributeName("s").keyType(KeyType.RANGE).build())
          .billingMode(BillingMode.PAY_PER_REQUEST));
      // key order: what the planner passes for loadOrder key-order (insertorder=ordered, zero-padded keys)
      List<String> common = props("workload", "site.ycsb.workloads.CoreWorkload", "db",
          "dev.fleetbench.ycsb.DynamoDbClient", "table", "usertable",
          "dynamodb.endpoint", local.endpoint, "dynamodb.region", "us-east-1", "recordcount", "300", "fieldcount", "2",
          "fieldlength", "10", "insertorder", "ordered", "zeropadding", "3",
          BindingConfig.PARTITION_KEY_VALUES, "4", BindingConfig.LOAD_ORDER, "key-order",
          "measurementtype", "hdrhistogram", "hdrhistogram.fileoutput", "true",
          "exporter", "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter");
      List<String> load = new ArrayList<>(List.of("-load", "-s"));
      load.addAll(common);
      load.addAll(props("threadcount", "1", "dynamodb.batchInserts", "25", "hdrhistogram.output.path",
          dir + "/load-", "exportfile", dir + "/load-summary.json"));
      run(dir, "dev.fleetbench.ycsb.Launcher", "load", load);
      assertEquals(300, local.count("usertable"));
      // record 7 is user007 in pk3 (7 mod 4)
      assertEquals("user007", local.admin().getItem(r -> r.tableName("usertable").key(Map.of(
          "p", AttributeValue.fromS("pk3"), "s", AttributeValue.fromS("user007")))).item().get("s").s());

      List<String> mix = new ArrayList<>(List.of("-t", "-s"));
      mix.addAll(common);
      mix.addAll(props("threadcount", "2", "operationcount", "100000000", "maxexecutiontime", "4", "target", "200",
          "readproportion", "0.5", "updateproportion", "0", "scanproportion", "0", "insertproportion", "0",
          "queryproportion", "0.5", "requestdistribution", "uniform", "measurement.interval", "both",
          "hdrhistogram.output.path", dir + "/run-", "exportfile", dir + "/summary.json"));
      run(dir, "dev.fleetbench.ycsb.Launcher", "run", mix);
      Map<String, Map<String, Double>> s = summary(dir.resolve("summary.json"));
      long queries = value(s, "QUERY", "Return=OK");
      long reads = value(s, "READ", "Return=OK");
      assertTrue(queries > 150 && reads > 150, "both ran: QUERY " + s.get("QUERY") + " READ " + s.get("READ"));
      // 0.5 each: a binomial count of n ~ 800 has a standard deviation near 14; 20 % apart is far outside it
      assertTrue(Math.abs(queries - reads) < 0.2 * (queries + reads) / 2, queries + " queries vs " + reads + " reads");
      assertEquals(queries, value(s, "QUERY", "Operations"), "no failed queries");
      assertEquals(queries, hdrCount(dir.resolve("run-QUERY.hdr")), "QUERY HDR log = summary");
      assertEquals(queries, hdrCount(dir.resolve("run-Intended-QUERY.hdr")), "Intended-QUERY HDR log = summary");
      assertTrue(!s.containsKey("QUERY-FAILED"), "no failed queries: " + s.keySet());
    }
  }
}
