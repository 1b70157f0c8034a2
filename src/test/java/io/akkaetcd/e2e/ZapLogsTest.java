package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * --logger zap --log-outputs FILE: every line of the file is a JSON object with etcd's zap fields
 * (level, ts, caller, msg); a leader election logs raft.node's line, and with the hidden
 * warn-apply-duration at 0 every apply logs etcd's "apply request took too long" warning.
 */
class ZapLogsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void zapWritesJsonLinesWithEtcdsWarnings() throws Exception {
    Path dir = Files.createTempDirectory("zap-logs");
    Path file = dir.resolve("member.log");
    try (ServerProcess s = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of("--logger", "zap",
        "--log-outputs", file.toString(), "--log-level", "info", "-J-Dakka-etcd.warn-apply-duration=0ms"))) {
      assertEquals(0, s.ctl("put", "k", "v").exit());
      JsonNode slow = await(file, l -> l.path("msg").asText().startsWith("apply request took too long")
          && l.path("request").asText().equals("put"));
      assertEquals("warn", slow.get("level").asText());
      assertTrue(!slow.toString().contains("\"v\""), "the request's kind, never its value: " + slow);
      assertEquals("0s", slow.get("expected-duration").asText());
      assertEquals("apply request took too long", slow.get("msg").asText(), "the fields are not repeated in msg");
      assertTrue(slow.get("took").asText().matches("[0-9.]+(ns|µs|ms|s)"), slow.toString());
      assertTrue(slow.get("caller").asText().startsWith("apply/ApplierActor.java:"), slow.toString());
      JsonNode elected = await(file, l -> l.path("msg").asText().matches("raft\\.node: [0-9a-f]+ elected leader [0-9a-f]+ at term \\d+"));
      assertEquals("info", elected.get("level").asText());
    } finally {
      List<JsonNode> lines = parse(file); // every line parses, or this throws
      assertTrue(lines.stream().allMatch(l -> l.hasNonNull("level") && l.hasNonNull("ts") && l.hasNonNull("msg")),
          "level, ts and msg on every line");
      assertTrue(lines.stream().allMatch(l -> l.get("ts").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d{4})")),
          "zap's ISO8601 time");
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }

  /** The first line matching {@code match}, polling the file until it appears (20 s at most). */
  private static JsonNode await(Path file, Predicate<JsonNode> match) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (true) {
      Optional<JsonNode> found = parse(file).stream().filter(match).findFirst();
      if (found.isPresent()) {
        return found.get();
      }
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("no such line in " + file + ":\n" + Files.readString(file));
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // polling the file, bounded by the deadline
    }
  }

  private static List<JsonNode> parse(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = Files.readString(file);
    text = text.substring(0, text.lastIndexOf('\n') + 1); // a line being written is not whole yet
    for (String line : text.split("\n")) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }
}
