package io.akkaetcd.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layout's rules, read from the main sources' imports and qualified names: the packages form
 * no cycle, and nothing below the API layer reaches up into it (issue #25).
 */
class LayeringTest {
  private static final Path MAIN = Path.of("src/main/java/io/akkaetcd");
  private static final Pattern REFERENCE = Pattern.compile("\\bio\\.akkaetcd\\.((?:[a-z][a-z0-9]*\\.)*)[A-Z]");
  private static final Pattern COMMENT_BLOCK = Pattern.compile("/\\*.*?\\*/", Pattern.DOTALL);
  private static final Pattern COMMENT_LINE = Pattern.compile("(?m)^\\s*//.*$");
  /**
   * The layers above the core, lowest first: transports (gRPC in api, the JSON gateway over it),
   * member wiring, embedding API, launcher.
   */
  private static final Set<String> UPPER = Set.of("api", "gateway", "server", "embed", "etcdmain");

  @Test
  void noPackageBelowTheApiLayerReferencesIt() throws IOException {
    List<String> upward = new ArrayList<>();
    dependencies().forEach((from, tos) -> {
      if (!isUpper(from)) {
        tos.stream().filter(LayeringTest::isUpper).forEach(to -> upward.add(from + " -> " + to));
      }
    });
    assertEquals(List.of(), upward);
  }

  @Test
  void packagesFormNoCycle() throws IOException {
    Map<String, Set<String>> deps = dependencies();
    assertFalse(deps.isEmpty(), "no sources under " + MAIN.toAbsolutePath());
    List<String> cycles = new ArrayList<>();
    for (String start : deps.keySet()) {
      for (String next : deps.get(start)) {
        if (reaches(deps, next, start, new TreeSet<>())) {
          cycles.add(start + " -> " + next + " -> ... -> " + start);
        }
      }
    }
    assertEquals(List.of(), cycles);
  }

  private static boolean isUpper(String pkg) {
    return UPPER.contains(pkg.split("\\.")[0]);
  }

  private static boolean reaches(Map<String, Set<String>> deps, String from, String target, Set<String> seen) {
    if (from.equals(target)) {
      return true;
    }
    if (!seen.add(from)) {
      return false;
    }
    for (String next : deps.getOrDefault(from, Set.of())) {
      if (reaches(deps, next, target, seen)) {
        return true;
      }
    }
    return false;
  }

  /** The source without its comments (a name in a doc comment is no dependency). */
  private static String code(String source) {
    return COMMENT_LINE.matcher(COMMENT_BLOCK.matcher(source).replaceAll("")).replaceAll("");
  }

  /** Package (relative to io.akkaetcd, generated protobuf excluded) to the packages it references. */
  private static Map<String, Set<String>> dependencies() throws IOException {
    Map<String, Set<String>> deps = new TreeMap<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String from = MAIN.relativize(f.getParent()).toString().replace('/', '.');
        Set<String> tos = deps.computeIfAbsent(from, k -> new TreeSet<>());
        Matcher m = REFERENCE.matcher(code(Files.readString(f)));
        while (m.find()) {
          String to = m.group(1).isEmpty() ? "" : m.group(1).substring(0, m.group(1).length() - 1);
          if (!to.isEmpty() && !to.equals(from) && !to.startsWith("proto")) {
            tos.add(to);
          }
        }
      }
    }
    return deps;
  }
}
