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

  /** etcd 3.4's gateway's words for a field of the wrong type (jsonpb over encoding/json). */
  @Test
  void wrongTypesFailAsJsonpb() {
    String[][] cases = {
        {"{\"key\":5}", "json: cannot unmarshal number into Go value of type []uint8"},
        {"{\"key\":\"Zm9v\",\"limit\":\"x\"}", "invalid character 'x' looking for beginning of value"},
        {"{\"limit\":true}", "json: cannot unmarshal bool into Go value of type int64"},
        {"{\"limit\":\"1.5\"}", "json: cannot unmarshal number 1.5 into Go value of type int64"},
        {"{\"limit\":99999999999999999999}", "json: cannot unmarshal number 99999999999999999999 into Go value of type int64"},
        {"{\"limit\":{}}", "json: cannot unmarshal object into Go value of type int64"},
        {"{\"serializable\":\"true\"}", "json: cannot unmarshal string into Go value of type bool"},
        {"{\"key\":\"!!\"}", "illegal base64 data at input byte 0"},
        {"{\"key\":\"Zm9\"}", "illegal base64 data at input byte 0"},
        {"{\"key\":\"Zm9vYg=x\"}", "illegal base64 data at input byte 6"},
        {"{\"sort_order\":\"NOPE\"}", "unknown value \"NOPE\" for enum etcdserverpb.RangeRequest_SortOrder"},
        {"{\"sort_order\":\"2\"}", "unknown value \"2\" for enum etcdserverpb.RangeRequest_SortOrder"},
        {"{\"sort_order\":true}", "json: cannot unmarshal bool into Go value of type etcdserverpb.RangeRequest_SortOrder"},
        {"{\"limit\":\"\"}", "unexpected end of JSON input"},
        {"{\"limit\":\"1 2\"}", "invalid character '2' after top-level value"},
        // json.Unmarshal's checkValid steps a blank at EOF; verified against etcd 3.4.23
        {"{\"limit\":\"-\"}", "invalid character ' ' in numeric literal"},
        {"{\"limit\":\"1x\"}", "invalid character 'x' after top-level value"},
        {"{\"limit\":\"1e2\"}", "json: cannot unmarshal number 1e2 into Go value of type int64"},
        {"{\"limit\":\"-9223372036854775809\"}", "json: cannot unmarshal number -9223372036854775809 into Go value of type int64"},
        {"{\"key\":[\"a\"]}", "json: cannot unmarshal string into Go value of type uint8"},
        {"{\"key\":\"Zm9v\",\"sort_order\":1.5}",
            "json: cannot unmarshal number 1.5 into Go value of type etcdserverpb.RangeRequest_SortOrder"},
    };
    for (String[] c : cases) {
      var e = assertThrows(com.google.protobuf.InvalidProtocolBufferException.class,
          () -> JsonMapping.parse(c[0], RangeRequest.newBuilder()), c[0]);
      assertEquals(c[1], e.getMessage(), c[0]);
    }
  }

  @Test
  void readsWhatJsonpbAccepts() throws Exception {
    // an array of numbers is a []byte too; null leaves a field unset; a quoted integer may have blanks
    assertEquals(RangeRequest.newBuilder().setKey(ByteString.copyFrom(new byte[] {1, (byte) 255})).setLimit(1).build(),
        JsonMapping.parse("{\"key\":[1,255],\"limit\":\" 1\",\"range_end\":null,\"sort_order\":null}",
            RangeRequest.newBuilder()));
    // Go's base64 skips CR and LF anywhere and ignores nonzero trailing bits; null bytes are 0
    assertEquals(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("fooa")).build(),
        JsonMapping.parse("{\"key\":\"Zm9v\\nYQ==\\r\\n\"}", RangeRequest.newBuilder()));
    assertEquals(ByteString.copyFromUtf8("f"), ((RangeRequest) JsonMapping.parse("{\"key\":\"Zn==\"}",
        RangeRequest.newBuilder())).getKey());
    assertEquals(ByteString.copyFrom(new byte[] {0, 1}), ((RangeRequest) JsonMapping.parse("{\"key\":[null,1]}",
        RangeRequest.newBuilder())).getKey());
    assertEquals(Long.MIN_VALUE, ((RangeRequest) JsonMapping.parse("{\"limit\":\"-9223372036854775808\"}",
        RangeRequest.newBuilder())).getLimit());
    // both names: the lowerCamel one wins
    assertEquals(RangeRequest.newBuilder().setMaxModRevision(5).build(),
        JsonMapping.parse("{\"maxModRevision\":\"5\",\"max_mod_revision\":\"3\"}", RangeRequest.newBuilder()));
    io.akkaetcd.proto.etcdserverpb.TxnRequest txn = (io.akkaetcd.proto.etcdserverpb.TxnRequest) JsonMapping.parse(
        "{\"success\":[{\"request_put\":{\"key\":\"YQ==\"}}],\"compare\":[{\"target\":1}]}",
        io.akkaetcd.proto.etcdserverpb.TxnRequest.newBuilder());
    assertEquals("a", txn.getSuccess(0).getRequestPut().getKey().toStringUtf8());
    assertEquals(io.akkaetcd.proto.etcdserverpb.Compare.CompareTarget.CREATE, txn.getCompare(0).getTarget());
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
