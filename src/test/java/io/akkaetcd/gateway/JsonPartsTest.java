package io.akkaetcd.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.akkaetcd.proto.etcdserverpb.Member;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonPartsTest {
  private static final ResponseHeader HEADER = ResponseHeader.newBuilder().setClusterId(0xc1).setMemberId(0xe2)
      .setRevision(1_000_007).setRaftTerm(3).build();

  /** The parts' JSON, concatenated. */
  private static String json(List<? extends Message> parts) {
    JsonParts json = new JsonParts();
    StringBuilder out = new StringBuilder();
    parts.forEach(p -> out.append(json.next(p).utf8String()));
    return out.append(json.end().utf8String()).toString();
  }

  private static KeyValue kv(Random random, int i) {
    byte[] value = new byte[random.nextInt(40)];
    random.nextBytes(value);
    return KeyValue.newBuilder().setKey(ByteString.copyFromUtf8("k<&=" + i)).setCreateRevision(i + 1)
        .setModRevision(i + 2).setVersion(random.nextInt(3)).setValue(ByteString.copyFrom(value))
        .setLease(random.nextBoolean() ? 0 : 0x7fff_0000_0000_0000L + i).build();
  }

  /** As EncodedRange cuts a range: the header, the kvs in chunks, then more and count. */
  @Test
  void aRangeInPartsPrintsAsTheWholeRange() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      List<KeyValue> kvs = new ArrayList<>();
      int n = random.nextInt(30);
      for (int i = 0; i < n; i++) {
        kvs.add(kv(random, i));
      }
      boolean more = random.nextBoolean();
      long count = random.nextBoolean() ? 0 : n + random.nextInt(5);
      List<RangeResponse> parts = new ArrayList<>();
      parts.add(RangeResponse.newBuilder().setHeader(HEADER).build());
      for (int from = 0; from < n; ) {
        int to = Math.min(n, from + 1 + random.nextInt(8));
        parts.add(RangeResponse.newBuilder().addAllKvs(kvs.subList(from, to)).build());
        from = to;
      }
      parts.add(RangeResponse.newBuilder().setMore(more).setCount(count).build());
      RangeResponse whole = RangeResponse.newBuilder().setHeader(HEADER).addAllKvs(kvs).setMore(more)
          .setCount(count).build();
      assertEquals(JsonMapping.print(whole), json(parts), "round " + round);
    }
  }

  @Test
  void repeatedScalarsGoOnAcrossPartsAndNoPartsIsTheEmptyMessage() {
    Member whole = Member.newBuilder().setID(5).setName("m1").addPeerURLs("http://a:1").addPeerURLs("http://b:2")
        .addPeerURLs("http://c:3").addClientURLs("http://d:4").build();
    List<Member> parts = List.of(
        Member.newBuilder().setID(5).setName("m1").addPeerURLs("http://a:1").build(),
        Member.newBuilder().addPeerURLs("http://b:2").addPeerURLs("http://c:3").build(),
        Member.newBuilder().addClientURLs("http://d:4").build());
    assertEquals(JsonMapping.print(whole), json(parts));
    assertEquals("{}", json(List.of()));
    assertEquals("{}", json(List.of(RangeResponse.getDefaultInstance())));
  }
}
