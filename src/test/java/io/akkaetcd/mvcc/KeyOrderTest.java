package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** KeyOrder orders keys exactly as protobuf's unsigned lexicographical comparator (etcd's order). */
class KeyOrderTest {
  @Test
  void agreesWithProtobufsUnsignedOrderOnRandomKeys() {
    Random rnd = new Random(42);
    for (int i = 0; i < 200_000; i++) {
      ByteString a = random(rnd);
      // half the time b shares a prefix with a, so prefixes and equal keys are covered
      ByteString b = rnd.nextBoolean() ? a.substring(0, rnd.nextInt(a.size() + 1)).concat(random(rnd)) : random(rnd);
      int expected = Integer.signum(ByteString.unsignedLexicographicalComparator().compare(a, b));
      assertEquals(expected, Integer.signum(KeyOrder.compare(a, b)), a + " vs " + b);
      assertEquals(0, KeyOrder.compare(a, a));
    }
  }

  private static ByteString random(Random rnd) {
    byte[] k = new byte[rnd.nextInt(5)];
    for (int j = 0; j < k.length; j++) {
      // mostly a few byte values, including 0x00 and 0xff, so that ties and sign matter
      k[j] = (byte) new int[] {0x00, 0x01, 0x7f, 0x80, 0xff, rnd.nextInt(256)}[rnd.nextInt(6)];
    }
    return ByteString.copyFrom(k);
  }
}
