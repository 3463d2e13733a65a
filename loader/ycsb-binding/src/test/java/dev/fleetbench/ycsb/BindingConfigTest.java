package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.props;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

class BindingConfigTest {
  @Test
  void defaults() throws Exception {
    BindingConfig c = BindingConfig.from(props());
    assertEquals("usertable", c.table);
    assertEquals("p", c.keyAttribute);
    assertTrue(c.endpoints.isEmpty());
    assertFalse(c.consistentReads);
    assertEquals(10_000, c.apiCallTimeoutMs);
    assertEquals(3, c.maxRetries);
    assertEquals(0, c.injectDelayUs);
    assertFalse(c.endpointsAreLocal());
  }

  @Test
  void endpointListAndLocality() throws Exception {
    BindingConfig c = BindingConfig.from(props("dynamodb.endpoint", "http://10.0.0.1:8080, http://10.0.0.2:8080"));
    assertEquals(List.of(URI.create("http://10.0.0.1:8080"), URI.create("http://10.0.0.2:8080")), c.endpoints);
    assertFalse(c.endpointsAreLocal());
    assertTrue(BindingConfig.from(props("dynamodb.endpoint", "http://127.0.0.1:8000,http://localhost:9"))
        .endpointsAreLocal());
  }

  @Test
  void everyBadPropertyIsNamed() {
    DBException e = assertThrows(DBException.class, () -> BindingConfig.from(props(
        "dynamodb.endpoint", "http://ok:1,,dynamodb.local",
        "dynamodb.consistentReads", "yes",
        "dynamodb.maxRetries", "-1",
        "dynamodb.apiCallTimeoutMs", "soon")));
    String m = e.getMessage();
    assertTrue(m.contains("dynamodb.endpoint[1]: empty entry"), m);
    assertTrue(m.contains("dynamodb.endpoint[2]: 'dynamodb.local' is not an http(s) URL"), m);
    assertTrue(m.contains("dynamodb.consistentReads: 'yes' is not true or false"), m);
    assertTrue(m.contains("dynamodb.maxRetries: -1 is below the minimum 0"), m);
    assertTrue(m.contains("dynamodb.apiCallTimeoutMs: 'soon' is not an integer"), m);
  }
}
