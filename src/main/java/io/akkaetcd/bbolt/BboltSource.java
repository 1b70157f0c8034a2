package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;

/**
 * The content of a bbolt image, pushed to a {@link Sink}: top-level buckets in bytewise order of
 * their names, each bucket's pairs in bytewise key order (bbolt's order). {@link BboltWriter} calls
 * {@link #emit} twice (a layout pass, then the write) and both calls must push the same content,
 * e.g. by reading the same store snapshot.
 */
@FunctionalInterface
public interface BboltSource {
  void emit(Sink sink) throws IOException;

  /** Receives buckets and pairs; rejects anything out of order. */
  interface Sink {
    void beginBucket(ByteString name) throws IOException;

    void put(ByteString key, ByteString value) throws IOException;

    void endBucket() throws IOException;
  }
}
