package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member loads leveldbjni's native library from the user's cache (io.akkaetcd.os.NativeLevelDb)
 * and leaves no copy of it in java.io.tmpdir, even when it is killed: HawtJNI's own copy per start,
 * deleted only at a normal JVM exit, had left 735 KB in /tmp at every start.
 */
class NativeLibraryCopyTest {
  @TempDir Path tmp;

  @Test
  void aKilledMemberLeavesNoCopyOfTheLibraryInTmp() throws IOException {
    for (int start = 0; start < 2; start++) {
      try (ServerProcess member = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD,
          List.of("-J-Djava.io.tmpdir=" + tmp))) {
        String maps = Files.readString(Path.of("/proc", Long.toString(member.pid()), "maps"));
        List<String> loaded = maps.lines().filter(l -> l.contains("leveldbjni")).toList();
        assertTrue(!loaded.isEmpty() && loaded.stream().allMatch(l -> l.contains("/akka-etcd/native/leveldbjni-")),
            "leveldbjni's mappings: " + loaded);
        member.kill();
      }
      try (Stream<Path> left = Files.list(tmp)) {
        assertEquals(List.of(), left.filter(p -> p.getFileName().toString().contains("leveldbjni")).toList(),
            "copies of the library left in java.io.tmpdir after start " + (start + 1));
      }
    }
  }
}
