package io.akkaetcd.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.akkaetcd.etcdmain.Main;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's build holds no load-tool classes: {@code loadtest/} is a Maven project of its own
 * (loadtest/pom.xml), and nothing of {@code io.akkaetcd.loadtest} may reach target/classes or the
 * server's jar. Nor does it hold tests' fault injection (the file-driven PeerFilter, the injected
 * quarantine, the test launcher), nor an application.conf at its root that would collide with an
 * embedding application's.
 */
class ServerJarContentsTest {
  private static final String LOADTEST = "io/akkaetcd/loadtest";
  /** A build from before loadtest/ had its own pom leaves its classes behind. */
  private static final String STALE = "load-tool classes in the server's build; if they are left from an older build, run mvn clean";

  /** Where the server's classes were compiled to: target/classes. */
  private static Path classes() throws URISyntaxException {
    return Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void classesDirectoryHoldsNoLoadTool() throws IOException, URISyntaxException {
    Path classes = classes();
    assertTrue(Files.isDirectory(classes.resolve("io/akkaetcd/server")), "not the server's classes dir: " + classes);
    try (Stream<Path> files = Files.walk(classes)) {
      List<Path> loadtool = files.filter(p -> classes.relativize(p).toString().startsWith(LOADTEST)).toList();
      assertEquals(List.of(), loadtool, STALE);
    }
    assertThrows(ClassNotFoundException.class, () -> Class.forName("io.akkaetcd.loadtest.Benchmark"));
  }

  @Test
  void serverJarHoldsNoLoadTool() throws IOException, URISyntaxException {
    Path jar = classes().resolveSibling("akka-etcd.jar");
    // The test phase runs before package: a fresh clone has no jar yet.
    assumeTrue(Files.exists(jar), "no " + jar + " yet");
    try (JarFile j = new JarFile(jar.toFile())) {
      assertTrue(j.getEntry("io/akkaetcd/etcdmain/Main.class") != null, "not the server's jar: " + jar);
      List<String> loadtool = j.stream().map(e -> e.getName()).filter(n -> n.startsWith(LOADTEST)).toList();
      assertEquals(List.of(), loadtool, STALE);
      List<String> testOnly = j.stream().map(e -> e.getName()).filter(n -> TEST_ONLY.stream().anyMatch(n::contains))
          .toList();
      assertEquals(List.of(), testOnly, "tests' fault injection in the server's jar");
      assertTrue(j.getEntry("application.conf") == null, "an application.conf at the jar's root");
      assertTrue(j.getEntry("reference.conf") != null, "no reference.conf in the jar");
    }
  }

  /** Class names of tests' fault injection, which only src/test may hold. */
  private static final List<String> TEST_ONLY = List.of("PeerFilter", "InjectedQuarantine", "FileFaults", "FaultyMain");
}
