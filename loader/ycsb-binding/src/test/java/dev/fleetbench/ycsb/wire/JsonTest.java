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

  @Test
  void unescapesStringsWithEscapesOnEveryPath() {
    // YCSB's random values (RandomByteIterator: ' ' plus 0..31, 0..63 or 0..94) are printable ASCII with a " or
    // a \ in most 100-character values: the parser's ASCII escape path
    String ycsbLike = "!#$%&'()*+,-./0123\"456789:;<=>?\"\" !";
    for (String value : new String[] {ycsbLike, "\"", "a\\b", "\b\f\n\r\t/", "x\"ü\"y", "a\"\u00e9\"b",
        "\"€😀\\", "end\\"}) {
      String quoted = Json.quote(new StringBuilder(), value).toString();
      assertEquals(value, Json.parse(quoted), quoted);
      // the same string inside a response, twice (the parser's buffer is reused) and with a key after it
      Map<String, Object> m = Json.object(Json.parse("{\"a\":{\"S\":" + quoted + "},\"b\":" + quoted
          + ",\"c\":\"plain\"}"));
      assertEquals(Map.of("a", Map.of("S", value), "b", value, "c", "plain"), m);
    }
    // escapes quote() does not write: \/, and a unicode escape after a simple one (the general path's)
    assertEquals("a/b\"", Json.parse("\"a\\/b\\\"\""));
    assertEquals("a\"é!", Json.parse("\"a\\\"\\u00e9!\""));
  }

  @Test
  void quotesRunsWholeAndEscapesOnlyWhatJsonRequires() {
    assertEquals("\"\"", Json.quote(new StringBuilder(), "").toString());
    assertEquals("\"plain text/~\"", Json.quote(new StringBuilder(), "plain text/~").toString());
    assertEquals("\"\\\"a\\\"\\\\\\u001f\"", Json.quote(new StringBuilder(), "\"a\"\\\u001f").toString());
    assertEquals("x\"ab\\\"c\"", Json.quote(new StringBuilder("x"), "ab\"c").toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "{", "{\"a\":1", "{\"a\" 1}", "[1,]x", "{\"a\":tru}", "\"abc", "{\"a\":\"\\q\"}",
      "{} {}", "{\"a\":1,}", "\"a\\\"b", "\"a\\\"", "\"a\\\"\\q\"", "\"a\\"})
  void rejectsTruncatedOrGarbledText(String text) {
    assertThrows(IllegalArgumentException.class, () -> Json.parse(text));
  }
}
