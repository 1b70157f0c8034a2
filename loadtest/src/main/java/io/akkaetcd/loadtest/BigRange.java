package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.mvccpb.KeyValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ranges over every key without a limit, several at once, each on its own connection (#33 item 1:
 * etcd builds such a response whole, etcd #12342). The tool reads each response as a stream and
 * keeps only a digest of its keys and values, so the figures are the server's, not the tool's.
 */
final class BigRange {
  /** What one range returned: kvs, their count field, the message size and a digest of keys and values. */
  record Answer(long kvs, long count, long bytes, String digest) {}

  record Result(double seconds, List<Answer> answers) {}

  private static final MethodDescriptor<RangeRequest, Answer> RANGE = MethodDescriptor.<RangeRequest, Answer>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("etcdserverpb.KV/Range")
      .setRequestMarshaller(ProtoUtils.marshaller(RangeRequest.getDefaultInstance()))
      .setResponseMarshaller(new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(Answer value) {
          throw new UnsupportedOperationException();
        }

        @Override
        public Answer parse(InputStream stream) {
          try {
            return digest(stream);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }).build();

  private BigRange() {}

  /** {@code ranges} ranges over all keys at once; throws if any fails. */
  static Result run(String endpoint, int ranges) throws Exception {
    List<ManagedChannel> channels = Rpc.channels(List.of(endpoint), ranges);
    try {
      RangeRequest all = RangeRequest.newBuilder().setKey(ByteString.copyFrom(new byte[] {0}))
          .setRangeEnd(ByteString.copyFrom(new byte[] {0})).build();
      long start = System.nanoTime();
      List<CompletableFuture<Answer>> answers = new ArrayList<>();
      for (ManagedChannel ch : channels) {
        answers.add(Rpc.call(ch, RANGE, CallOptions.DEFAULT.withMaxInboundMessageSize(Integer.MAX_VALUE), all));
      }
      List<Answer> out = new ArrayList<>();
      for (CompletableFuture<Answer> a : answers) {
        out.add(a.get(30, TimeUnit.MINUTES));
      }
      return new Result((System.nanoTime() - start) / 1e9, out);
    } finally {
      Rpc.shutdown(channels);
    }
  }

  /** Reads a RangeResponse field by field, digesting each kv's key and value. */
  private static Answer digest(InputStream stream) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    CodedInputStream in = CodedInputStream.newInstance(stream);
    in.setSizeLimit(Integer.MAX_VALUE);
    long kvs = 0;
    long count = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 2 -> {
          KeyValue kv = KeyValue.parseFrom(in.readByteArray());
          md.update(kv.getKey().toByteArray());
          md.update(kv.getValue().toByteArray());
          kvs++;
        }
        case 4 -> count = in.readInt64();
        default -> in.skipField(tag);
      }
    }
    return new Answer(kvs, count, in.getTotalBytesRead(), HexFormat.of().formatHex(md.digest(), 0, 8));
  }
}
