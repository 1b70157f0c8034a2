package io.akkaetcd.auth;

import static io.akkaetcd.auth.AuthStateTest.HASH;
import static io.akkaetcd.auth.AuthStateTest.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuthCodecTest {
  private static String hex(ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  @Test
  void flagAndRevisionAsEtcdStoresThem() {
    assertEquals("01", hex(AuthCodec.encodeEnabled(true)));
    assertEquals("00", hex(AuthCodec.encodeEnabled(false)));
    assertTrue(AuthCodec.decodeEnabled(b("\u0001")));
    assertFalse(AuthCodec.decodeEnabled(b("\u0002")));
    assertFalse(AuthCodec.decodeEnabled(null));
    assertEquals("0000000000000102", hex(AuthCodec.encodeRevision(258)));
    assertEquals(258, AuthCodec.decodeRevision(AuthCodec.encodeRevision(258)));
    assertEquals(0, AuthCodec.decodeRevision(null));
  }

  @Test
  void userBytesAreEtcds() {
    // authpb.User{name=1 "root", password=2 "pw", roles=3 ["root"], options=4 {}} as gogo writes it
    User root = new User("root", b("pw"), List.of("root"), false);
    assertEquals("0a04726f6f74120270771a04726f6f742200", hex(AuthCodec.encodeUser(root)));
    assertEquals(root, AuthCodec.decodeUser(AuthCodec.encodeUser(root)));
    User cn = new User("cn", ByteString.EMPTY, List.of(), true);
    assertEquals("0a02636e22020801", hex(AuthCodec.encodeUser(cn)));
    assertEquals(cn, AuthCodec.decodeUser(AuthCodec.encodeUser(cn)));
  }

  @Test
  void roleBytesAreEtcds() {
    // authpb.Role{name=1 "r", keyPermission=2 [{permType=1 WRITE, key=2 "a", range_end=3 "b"}, {READ, "c"}]}
    Role r = new Role("r", List.of(new Permission(PermType.WRITE, b("a"), b("b")),
        new Permission(PermType.READ, b("c"), ByteString.EMPTY)));
    assertEquals("0a0172120808011201611a01621203120163", hex(AuthCodec.encodeRole(r)));
    assertEquals(r, AuthCodec.decodeRole(AuthCodec.encodeRole(r)));
  }

  @Test
  void rowsRoundTripAndDiffOnlyWhatChanged() {
    AuthState s = AuthState.EMPTY.userAdd("root", HASH, false).userGrantRole("root", "root").roleAdd("r")
        .roleGrantPermission("r", new Permission(PermType.READWRITE, b("k"), b("\0"))).userAdd("u", HASH, true)
        .userGrantRole("u", "r").authEnable();
    AuthState back = AuthRows.load(AuthRows.all(s));
    assertEquals(s.enabled(), back.enabled());
    assertEquals(s.revision(), back.revision());
    assertEquals(s.users(), back.users());
    assertEquals(s.roles(), back.roles());
    assertTrue(back.isRangePermitted("u", b("kz"), b(""), PermType.WRITE));

    AuthState next = s.roleDelete("r");
    List<AuthRows.Row> diff = AuthRows.diff(s, next);
    assertEquals(List.of(
        new AuthRows.Row(AuthCodec.AUTH_BUCKET, AuthCodec.REVISION_KEY, AuthCodec.encodeRevision(next.revision())),
        new AuthRows.Row(AuthCodec.USERS_BUCKET, b("u"), AuthCodec.encodeUser(next.user("u"))),
        new AuthRows.Row(AuthCodec.ROLES_BUCKET, b("r"), null)), diff);
    assertEquals(1, AuthRows.load(List.of()).revision());
  }
}
