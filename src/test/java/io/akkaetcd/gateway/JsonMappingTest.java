package io.akkaetcd.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.Member;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

/** The gateway's JSON as etcd 3.4's grpc-gateway writes and reads it. */
class JsonMappingTest {
  @Test
  void printsProtoNamesInt64AsStringsAndLeavesZerosOut() {
    assertEquals("{\"header\":{\"cluster_id\":\"18446744073709551615\",\"revision\":\"2\"},\"ID\":\"7\",\"TTL\":\"30\"}",
        JsonMapping.print(LeaseGrantResponse.newBuilder().setHeader(ResponseHeader.newBuilder()
            .setClusterId(-1L).setRevision(2)).setID(7).setTTL(30).build()));
    assertEquals("{\"ID\":\"1\",\"peerURLs\":[\"http://a\"],\"isLearner\":true}",
        JsonMapping.print(Member.newBuilder().setID(1).addPeerURLs("http://a").setIsLearner(true).build()));
    assertEquals("{}", JsonMapping.print(RangeRequest.getDefaultInstance()));
  }

  @Test
  void readsEitherNameAndIntegersAsNumbersOrStringsIgnoringUnknownFields() throws Exception {
    RangeRequest expected = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("foo"))
        .setRangeEnd(ByteString.copyFromUtf8("fop")).setLimit(5).setSortOrder(RangeRequest.SortOrder.DESCEND).build();
    assertEquals(expected, JsonMapping.parse(
        "{\"key\":\"Zm9v\",\"range_end\":\"Zm9w\",\"limit\":\"5\",\"sort_order\":\"DESCEND\",\"nope\":[1]}",
        RangeRequest.newBuilder()));
    assertEquals(expected, JsonMapping.parse(
        "{\"key\":\"Zm9v\",\"rangeEnd\":\"Zm9w\",\"limit\":5,\"sortOrder\":2}", RangeRequest.newBuilder()));
    assertEquals(RangeRequest.getDefaultInstance(), JsonMapping.parse("", RangeRequest.newBuilder()));
    assertThrows(GoJsonDecoder.DecodeException.class, () -> JsonMapping.parse("{bad", RangeRequest.newBuilder()));
  }

  @Test
  void escapesAsGo() {
    assertEquals("\"a<b\"", JsonMapping.quoted("a<b").replace("\\u003c", "<"));
    assertEquals("\"\\u003c=' \\u0026\"", JsonMapping.quoted("<=' &"));
    // an escaped backslash followed by the text u003d stays as it is
    assertEquals("\"\\\\u003d\"", JsonMapping.goEscaped("\"\\\\u003d\""));
  }

  @Test
  void errorsAsGrpcGatewayWritesThem() {
    Status s = Status.FAILED_PRECONDITION.withDescription("etcdserver: \"x\"");
    assertEquals(412, GatewayErrors.httpStatus(s.getCode()));
    assertEquals("{\"error\":\"etcdserver: \\\"x\\\"\",\"message\":\"etcdserver: \\\"x\\\"\",\"code\":9}",
        GatewayErrors.body(s));
    assertEquals("{\"error\":{\"grpc_code\":12,\"http_code\":501,\"message\":\"m\",\"http_status\":\"Not Implemented\"}}\n",
        GatewayErrors.streamChunk(Status.UNIMPLEMENTED.withDescription("m")));
  }
}
