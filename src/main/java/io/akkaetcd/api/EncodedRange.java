package io.akkaetcd.api;

import akka.grpc.GrpcServiceException;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.mvcc.RangeRows;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.grpc.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * etcd's RangeResponse encoded from a range's stored rows ({@link KvApplier#rangeRows}), fields in
 * the order Go's marshalling writes them (header, kvs, more, count), so the bytes equal those of
 * the same RangeResponse built and serialized. Above {@value #STREAM_BYTES} bytes it is streamed:
 * one part a chunk of rows, read as the client takes them.
 */
final class EncodedRange {
  /** Messages larger than this are streamed. */
  static final long STREAM_BYTES = 1 << 20;
  /** grpc-go's send limit as etcd sets it (math.MaxInt32). */
  static final long MAX_SEND_BYTES = Integer.MAX_VALUE;

  private EncodedRange() {}

  /** The answer's message, whole when small; a streamed one reads its rows as it is sent. */
  static EncodedMessage encode(ResponseHeader header, KvApplier.RowsAnswer answer) {
    RangeRows rows = answer.rows();
    ByteString head = head(header);
    ByteString tail = tail(answer.more(), rows.count());
    long size = head.size() + (long) rows.size() + rows.delimitedBytes() + tail.size();
    if (size > MAX_SEND_BYTES) {
      throw new GrpcServiceException(Status.RESOURCE_EXHAUSTED.withDescription(
          "grpc: trying to send message larger than max (" + size + " vs. " + MAX_SEND_BYTES + ")"));
    }
    if (size > STREAM_BYTES) {
      return EncodedMessage.streamed(size,
          Source.unfoldResource(() -> new Parts(head, rows, tail, size), Parts::next, parts -> { }));
    }
    ByteString whole = head;
    for (List<byte[]> chunk = rows.next(); !chunk.isEmpty(); chunk = rows.next()) {
      whole = whole.concat(kvs(chunk));
    }
    return EncodedMessage.whole(whole.concat(tail).compact());
  }

  private static ByteString head(ResponseHeader header) {
    return encoded(CodedOutputStream.computeMessageSize(RangeResponse.HEADER_FIELD_NUMBER, header),
        out -> out.writeMessage(RangeResponse.HEADER_FIELD_NUMBER, header));
  }

  private static ByteString tail(boolean more, long count) {
    int size = (more ? CodedOutputStream.computeBoolSize(RangeResponse.MORE_FIELD_NUMBER, true) : 0)
        + (count != 0 ? CodedOutputStream.computeInt64Size(RangeResponse.COUNT_FIELD_NUMBER, count) : 0);
    return encoded(size, out -> {
      if (more) {
        out.writeBool(RangeResponse.MORE_FIELD_NUMBER, true);
      }
      if (count != 0) {
        out.writeInt64(RangeResponse.COUNT_FIELD_NUMBER, count);
      }
    });
  }

  /** Rows as the repeated kvs field: each a tag, its length and the stored KeyValue bytes. */
  private static ByteString kvs(List<byte[]> rows) {
    int size = 0;
    for (byte[] row : rows) {
      size += CodedOutputStream.computeByteArraySize(RangeResponse.KVS_FIELD_NUMBER, row);
    }
    return encoded(size, out -> {
      for (byte[] row : rows) {
        out.writeByteArray(RangeResponse.KVS_FIELD_NUMBER, row);
      }
    });
  }

  private interface Writes {
    void to(CodedOutputStream out) throws IOException;
  }

  private static ByteString encoded(int size, Writes writes) {
    byte[] bytes = new byte[size];
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      writes.to(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.checkNoSpaceLeft();
    return ByteString.fromArrayUnsafe(bytes);
  }

  /** A streamed message's parts: the head, the rows chunk by chunk, the tail; exactly its size. */
  private static final class Parts {
    private final ByteString head;
    private final RangeRows rows;
    private final ByteString tail;
    private final long size;
    private long sent;
    private boolean headSent;
    private boolean done;

    Parts(ByteString head, RangeRows rows, ByteString tail, long size) {
      this.head = head;
      this.rows = rows;
      this.tail = tail;
      this.size = size;
    }

    Optional<ByteString> next() {
      ByteString part;
      if (!headSent) {
        headSent = true;
        part = head;
      } else if (done) {
        if (sent != size) {
          throw new IllegalStateException("range rows came to " + sent + " bytes, not the " + size + " announced");
        }
        return Optional.empty();
      } else {
        List<byte[]> chunk = rows.next();
        done = chunk.isEmpty();
        part = done ? tail : kvs(chunk);
      }
      sent += part.size();
      return Optional.of(part);
    }
  }
}
