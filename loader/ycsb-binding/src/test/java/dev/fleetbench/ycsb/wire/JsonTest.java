package dev.fleetbench.ycsb.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {
  @Test
  void quotesWhatJsonRequiresAndParsesItBack() {
    String tricky = "a\"b\\c\nd\te\u0001f/ü€😀 ~";
    String quoted = Json.quote(new StringBuilder(), tricky).toString();
    assertEquals("\"a\\\"b\\\\c\\nd\\te\\u0001f/ü€😀 ~\"", quoted);
    assertEquals(tricky, Json.parse(quoted));
  }

  @Test
  void parsesADynamoDbResponse() {
    Object v = Json.parse(" {\"Items\":[{\"p\":{\"S\":\"user1\"},\"n\":{\"N\":\"12.5\"}},{}],\"Count\":2,"
        + "\"LastEvaluatedKey\":{\"p\":{\"S\":\"u\\u00e9\\/x\"}},\"ok\":true,\"none\":null,\"e\":-1.5e3}\n");
    Map<String, Object> m = Json.object(v);
    assertEquals(2.0, m.get("Count"));
    assertEquals(-1500.0, m.get("e"));
    assertEquals(Boolean.TRUE, m.get("ok"));
    assertEquals(true, m.containsKey("none"));
    List<?> items = (List<?>) m.get("Items");
    assertEquals(Map.of("p", Map.of("S", "user1"), "n", Map.of("N", "12.5")), items.get(0));
    assertEquals(Map.of(), items.get(1));
    assertEquals(Map.of("p", Map.of("S", "ué/x")), m.get("LastEvaluatedKey"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "{", "{\"a\":1", "{\"a\" 1}", "[1,]x", "{\"a\":tru}", "\"abc", "{\"a\":\"\\q\"}",
      "{} {}", "{\"a\":1,}"})
  void rejectsTruncatedOrGarbledText(String text) {
    assertThrows(IllegalArgumentException.class, () -> Json.parse(text));
  }
}
