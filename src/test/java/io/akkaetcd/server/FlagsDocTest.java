package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/flags.md is the flag table as {@link FlagsDoc} prints it (regenerate it with FlagsDoc's main). */
class FlagsDocTest {
  @Test
  void docsListEveryFlagAsTheTableHasIt() throws IOException {
    assertEquals(FlagsDoc.markdown(), Files.readString(Path.of("docs/flags.md")),
        "docs/flags.md is stale: run java -cp target/classes io.akkaetcd.server.FlagsDoc docs/flags.md");
  }
}
