package io.akkaetcd.bbolt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bbolt's tx.Check on images from our writer, whole and damaged page by page. */
class BboltCheckTest {
  @TempDir Path dir;
  private SnapshotImage image;

  @BeforeEach
  void writeImage() throws IOException {
    image = SnapshotImage.write(dir.resolve("snap.db"));
  }

  private List<String> check() throws IOException {
    try (BboltReader r = BboltReader.open(image.save())) {
      return BboltCheck.check(r);
    }
  }

  @Test
  void aWrittenImageIsConsistent() throws IOException {
    assertEquals(List.of(), check());
  }

  @Test
  void aReachablePageFreedTwiceIsReportedTwice() throws IOException {
    long leaf = image.keyLeaf(1);
    image.free(leaf, leaf);
    assertEquals(List.of("page " + leaf + ": already freed", "page " + leaf + ": reachable freed"), check());
  }

  @Test
  void aPageReferencedTwiceLeavesAnotherUnreachable() throws IOException {
    long first = image.keyLeaf(0);
    long orphan = image.keyLeaf(1);
    image.pointKeyEntry(1, first);
    assertEquals(List.of("page " + first + ": multiple references", "page " + orphan + ": unreachable unfreed"), check());
  }

  @Test
  void aPageOfNoTreeTypeIsInvalid() throws IOException {
    long leaf = image.keyLeaf(2);
    image.page(leaf).putShort(8, (short) 0x20);
    assertEquals(List.of("page " + leaf + ": invalid type: unknown<20>"), check());
  }

  @Test
  void aPageIdBeyondTheHighWaterMarkIsOutOfBounds() throws IOException {
    long leaf = image.keyLeaf(0);
    long high = image.highWater();
    image.page(leaf).putLong(0, high + 7); // bbolt trusts the id in the page header
    assertEquals(List.of("page " + (high + 7) + ": out of bounds: " + high, "page " + leaf + ": unreachable unfreed"),
        check());
  }

  @Test
  void metasAreRefusedWithBboltsErrors() throws IOException {
    byte[] whole = image.copy();
    image.page(0).putInt(16, 0); // magic
    image.page(1).putInt(16, 0);
    Path file = image.save();
    assertEquals("invalid database", assertThrows(IOException.class, () -> BboltReader.open(file)).getMessage());
    image.restore(whole);
    image.page(0).putLong(16 + 40, image.highWater() + 1); // a checksummed field
    image.page(1).putInt(16 + 4, 3); // version
    image.save();
    assertEquals("checksum error", assertThrows(IOException.class, () -> BboltReader.open(file)).getMessage());
    image.restore(whole);
    image.page(0).putLong(16 + 40, image.highWater() + 1);
    assertEquals(List.of(), check(), "meta1 stands in for a damaged meta0");
  }
}
