package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Plays the command blocks of README.md and docs/*.md that are marked playable, as a reader would
 * paste them into a shell, in order, against a fresh akka-etcd member on free ports. The convention
 * (docs/testing.md): a {@code ```sh} block right after the line {@link #MARKER}; a {@code ```text}
 * block right after it is the output it must print.
 */
class DocCommandsTest {
  static final String MARKER = "<!-- play: single-member -->";
  private static final Path ROOT = Path.of("").toAbsolutePath();

  /** One playable block: where it is, its script, and the output the document shows (or null). */
  record Block(String where, String script, String output) {}

  /**
   * One test per document with playable blocks: a fresh member, and its blocks played on it in
   * the document's order, as a reader pastes them one after the other.
   */
  @TestFactory
  Stream<DynamicTest> playableBlocksRunInOrderAgainstAFreshMember() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    boolean anyOutput = false;
    for (Path doc : documents()) {
      String name = ROOT.relativize(doc).toString();
      List<Block> blocks = blocks(name, Files.readAllLines(doc));
      anyOutput |= blocks.stream().anyMatch(b -> b.output() != null);
      if (!blocks.isEmpty()) {
        tests.add(DynamicTest.dynamicTest(name, () -> play(blocks)));
      }
    }
    assertTrue(anyOutput, "no playable block shows its output");
    return tests.stream();
  }

  @Test
  void markerWithoutAShellBlockIsAnError() {
    List<String> lines = List.of("text", MARKER, "", "```sh", "true", "```");
    try {
      blocks("doc.md", lines);
      fail("a marker followed by a blank line was accepted");
    } catch (IllegalArgumentException e) {
      assertEquals("doc.md:2: " + MARKER + " must be followed by a ```sh block", e.getMessage());
    }
  }

  @Test
  void outputBlockBelongsToTheShellBlockBeforeIt() {
    List<String> lines = List.of(MARKER, "```sh", "echo a", "echo b", "```", "```text", "a", "b", "```",
        "```sh", "not played", "```", MARKER, "```sh", "true", "```", "", "```text", "not its output", "```");
    assertEquals(List.of(new Block("doc.md:2", "echo a\necho b\n", "a\nb\n"), new Block("doc.md:14", "true\n", null)),
        blocks("doc.md", lines));
  }

  /** README.md and docs/*.md, in name order. */
  private static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** The playable blocks of one document; a marker not followed by a sh block is an error. */
  static List<Block> blocks(String name, List<String> lines) {
    List<Block> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).trim().equals(MARKER)) {
        continue;
      }
      if (i + 1 >= lines.size() || !lines.get(i + 1).trim().equals("```sh")) {
        throw new IllegalArgumentException(name + ":" + (i + 1) + ": " + MARKER + " must be followed by a ```sh block");
      }
      int end = fenceEnd(name, lines, i + 1);
      String script = body(lines, i + 2, end);
      String output = null;
      if (end + 1 < lines.size() && lines.get(end + 1).trim().equals("```text")) {
        output = body(lines, end + 2, fenceEnd(name, lines, end + 1));
      }
      out.add(new Block(name + ":" + (i + 2), script, output));
    }
    return out;
  }

  private static int fenceEnd(String name, List<String> lines, int open) {
    for (int j = open + 1; j < lines.size(); j++) {
      if (lines.get(j).trim().equals("```")) {
        return j;
      }
    }
    throw new IllegalArgumentException(name + ":" + (open + 1) + ": unclosed block");
  }

  private static String body(List<String> lines, int from, int to) {
    StringBuilder b = new StringBuilder();
    lines.subList(from, to).forEach(l -> b.append(l).append('\n'));
    return b.toString();
  }

  /**
   * Runs each block with bash (stopping at its first failing command) in an empty directory, with
   * etcdctl's default endpoint, and any 127.0.0.1:2379 in the block, pointed at one fresh member.
   */
  private static void play(List<Block> blocks) throws IOException, InterruptedException {
    try (ServerProcess member = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      for (Block block : blocks) {
        Path dir = Files.createTempDirectory("doc-block");
        try {
          run(block, member, dir);
        } finally {
          ServerProcess.deleteTree(dir);
        }
      }
    }
  }

  private static void run(Block block, ServerProcess member, Path dir) throws IOException, InterruptedException {
    Path script = dir.resolve("block.sh");
    Files.writeString(script, block.script().replace("127.0.0.1:2379", member.endpoint()));
    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    ProcessBuilder pb = new ProcessBuilder("bash", "-e", "-o", "pipefail", script.toString())
        .directory(Files.createDirectory(dir.resolve("work")).toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("ETCDCTL_"));
    pb.environment().put("ETCDCTL_ENDPOINTS", member.endpoint());
    Process p = pb.start();
    p.getOutputStream().close();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(block.where() + ": still running after 60 s (does a command block the shell?)");
    }
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    String shown = block.where() + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    assertEquals(0, p.exitValue(), shown);
    if (block.output() != null) {
      assertEquals(block.output(), stdout, shown);
    }
  }
}
