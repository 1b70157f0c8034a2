package io.akkaetcd.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLevelDbTest {
  @TempDir Path base;

  @Test
  void copiesTheLibraryOnceIntoAPrivateDirectoryNamedByItsContent() throws IOException {
    Path dir = NativeLevelDb.install(base, getClass().getClassLoader());
    assertNotNull(dir);
    Path file = dir.resolve("libleveldbjni.so");
    byte[] resource;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(NativeLevelDb.RESOURCE)) {
      resource = in.readAllBytes();
    }
    assertArrayEquals(resource, Files.readAllBytes(file));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    Object written = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();

    // A second start finds it: same directory, same file (not written again), nothing else left.
    assertEquals(dir, NativeLevelDb.install(base, getClass().getClassLoader()));
    assertEquals(written, Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey());
    try (Stream<Path> all = Files.walk(base)) {
      assertEquals(List.of(base, dir, file), all.sorted().toList());
    }
  }

  @Test
  void aTruncatedCopyIsReplacedWhole() throws IOException {
    Path dir = NativeLevelDb.install(base, getClass().getClassLoader());
    Path file = dir.resolve("libleveldbjni.so");
    long size = Files.size(file);
    Files.write(file, new byte[10]);
    assertEquals(dir, NativeLevelDb.install(base, getClass().getClassLoader()));
    assertEquals(size, Files.size(file));
  }

  @Test
  void withoutTheResourceNothingIsWritten() throws IOException {
    try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
      assertNull(NativeLevelDb.install(base, empty));
    }
    try (Stream<Path> all = Files.list(base)) {
      assertEquals(0, all.count());
    }
  }
}
