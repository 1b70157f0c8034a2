package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;

/**
 * The content of a bbolt image, pushed to a {@link Sink}: top-level buckets in bytewise order of
 * their names, each bucket's pairs in bytewise key order (bbolt's order). {@link BboltWriter} calls
 * {@link #emitSizes} for a layout pass, then {@link #emit} for the write, and both calls must push
 * the same content, e.g. by reading the same store snapshot.
 */
@FunctionalInterface
public interface BboltSource {
  void emit(Sink sink) throws IOException;

  /**
   * The same content for the layout pass, where only sizes count: a source may push a pair as its
   * key's and value's sizes alone ({@link Sink#putSizes}). By default, the content itself.
   */
  default void emitSizes(Sink sink) throws IOException {
    emit(sink);
  }

  /** Receives buckets and pairs; rejects anything out of order. */
  interface Sink {
    void beginBucket(ByteString name) throws IOException;

    void put(ByteString key, ByteString value) throws IOException;

    /** A pair known by its sizes alone; only in the layout pass ({@link BboltSource#emitSizes}). */
    void putSizes(int keySize, int valueSize) throws IOException;

    void endBucket() throws IOException;
  }
}
