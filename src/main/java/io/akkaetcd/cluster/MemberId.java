package io.akkaetcd.cluster;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.List;

/**
 * A member's id, an unsigned 64-bit number printed in hex as etcd prints it.
 *
 * <p>Derived as etcd derives a bootstrapping member's id (server/etcdserver/api/membership/member.go):
 * the first 8 bytes, big-endian, of SHA-1 over the member's sorted peer URLs joined with nothing,
 * followed by the cluster token. So the same flags give the same id on every start and on every
 * member, and etcdctl shows the same ids as it would against etcd.
 */
public record MemberId(long value) implements Comparable<MemberId> {

  public static MemberId of(List<URI> peerUrls, String clusterToken) {
    String joined = peerUrls.stream().map(URI::toString).sorted().reduce("", String::concat);
    return new MemberId(first8(sha1((joined + clusterToken).getBytes(StandardCharsets.UTF_8))));
  }

  /** The cluster id: SHA-1 over the sorted member ids, each 8 bytes big-endian (etcd's genID). */
  public static long clusterId(Collection<MemberId> members) {
    ByteBuffer b = ByteBuffer.allocate(8 * members.size());
    members.stream().sorted().forEach(m -> b.putLong(m.value));
    return first8(sha1(b.array()));
  }

  @Override
  public int compareTo(MemberId o) {
    return Long.compareUnsigned(value, o.value);
  }

  @Override
  public String toString() {
    return Long.toHexString(value);
  }

  private static long first8(byte[] hash) {
    return ByteBuffer.wrap(hash, 0, 8).getLong();
  }

  private static byte[] sha1(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }
}
