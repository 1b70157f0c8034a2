package io.akkaetcd.api.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import akka.http.shaded.com.twitter.hpack.Decoder;
import akka.http.shaded.com.twitter.hpack.Encoder;
import akka.util.ByteString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthorityRepairTest {

  @Test
  void whatAkkaHttpSurelyAcceptsIsLeftAlone() {
    Map<String, Boolean> cases = new LinkedHashMap<>();
    cases.put("127.0.0.1:2379", true);
    cases.put("localhost", true);
    cases.put("etcd-0.etcd.svc", true);
    cases.put("[::1]:2379", true);
    cases.put("", true);
    cases.put("http://127.0.0.1:2379", false);
    cases.put("https://etcd:2379", false);
    cases.put("user@host", false);
    cases.put("host:", false);
    cases.put("host:123456", false);
    cases.put("host:12a", false);
    cases.put("[]", false);
    cases.put("a b", false);
    cases.forEach((value, ok) -> assertEquals(ok, AuthorityRepair.acceptable(value), value));
  }

  @Test
  void aRepairedValueHasTheSameLengthAndIsAcceptable() {
    String repaired = AuthorityRepair.sanitized("http://127.0.0.1:2379");
    assertEquals("http___127.0.0.1_2379", repaired);
    assertEquals(true, AuthorityRepair.acceptable(repaired));
  }

  @Test
  void aBlockWithAnAcceptableAuthorityIsNotTouched() throws IOException {
    Encoder client = new Encoder(4096);
    ByteString block = encode(client, List.of(":method", "POST", ":authority", "127.0.0.1:2379"));
    assertNull(new AuthorityRepair().repair(block));
  }

  /**
   * As grpc-go would send it (the authority indexed once, then referenced), with large fields in
   * between so that entries are evicted: the server's decoder must read every other field as sent
   * and the authority repaired, block after block (its table evicting in step with the client's).
   */
  @Test
  void theServersTableStaysInStepWithTheClients() throws IOException {
    Encoder client = new Encoder(4096);
    AuthorityRepair repair = new AuthorityRepair();
    Decoder server = new Decoder(Integer.MAX_VALUE, 4096);
    for (int i = 0; i < 300; i++) {
      List<String> sent = List.of(":method", "POST", ":scheme", "http", ":path", "/etcdserverpb.Maintenance/Status",
          ":authority", "http://127.0.0.1:2379", "grpc-timeout", i + "m", "x-pad-" + (i % 7), "v".repeat(i % 500));
      ByteString block = encode(client, sent);
      ByteString repaired = repair.repair(block);
      List<String> expected = new ArrayList<>(sent);
      expected.set(7, "http___127.0.0.1_2379");
      assertEquals(expected, decode(server, repaired == null ? block : repaired), "block " + i);
    }
  }

  static ByteString encode(Encoder encoder, List<String> fields) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < fields.size(); i += 2) {
      encoder.encodeHeader(out, fields.get(i), fields.get(i + 1), false);
    }
    return ByteString.fromArray(out.toByteArray());
  }

  static List<String> decode(Decoder decoder, ByteString block) throws IOException {
    List<String> fields = new ArrayList<>();
    decoder.decode(new ByteArrayInputStream(block.toArray()), (name, value, parsed, sensitive) -> {
      fields.add(name);
      fields.add(value);
      return parsed;
    });
    decoder.endHeaderBlock();
    return fields;
  }
}
