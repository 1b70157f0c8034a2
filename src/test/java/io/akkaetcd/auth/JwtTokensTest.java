package io.akkaetcd.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.errors.ErrorCode;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JwtTokensTest {
  @TempDir
  Path dir;

  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  };

  /** Test stand-in for the server's Go duration parser: "5m", "10s". */
  private static Duration goDuration(String s) {
    return Duration.parse("PT" + s.toUpperCase());
  }

  private TokenProvider provider(String flag) {
    return AuthTokenOptions.parse(flag).provider(Duration.ofSeconds(300), JwtTokensTest::goDuration,
        new SecureRandom(), System::nanoTime, clock);
  }

  private static KeyPair keys(String algorithm) throws Exception {
    if (algorithm.startsWith("ES")) {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      String curve = switch (algorithm) {
        case "ES256" -> "secp256r1";
        case "ES384" -> "secp384r1";
        default -> "secp521r1";
      };
      g.initialize(new ECGenParameterSpec(curve));
      return g.generateKeyPair();
    }
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  /**
   * Writes a key as PEM: RSA private keys as PKCS#1, EC private keys as PKCS#8 (BouncyCastle would
   * write a JDK EC key as SEC1 without its curve), public keys as SubjectPublicKeyInfo.
   */
  private Path pem(String name, Object key) throws IOException {
    if (key instanceof java.security.interfaces.ECPrivateKey ec) {
      key = new JcaPKCS8Generator(ec, null).generate();
    }
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(key);
    }
    Path file = dir.resolve(name);
    Files.writeString(file, out.toString());
    return file;
  }

  @ParameterizedTest
  @ValueSource(strings = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"})
  void roundTripPerMethod(String method) throws Exception {
    KeyPair kp = keys(method);
    Path priv = pem("priv.pem", kp.getPrivate());
    Path pub = pem("pub.pem", kp.getPublic());
    TokenProvider tokens = provider("jwt,pub-key=" + pub + ",priv-key=" + priv + ",sign-method=" + method + ",ttl=5m");
    JwtTokens jwt = assertInstanceOf(JwtTokens.class, tokens);
    assertEquals(method, jwt.algorithm().getName());
    String token = tokens.assign("alice", 42, "", 7);
    assertEquals(3, token.split("\\.").length);
    assertEquals(0, tokens.requiredIndex(token));
    // the token carries its own revision, whatever the store's is now
    assertEquals(Optional.of(new AuthInfo("alice", 42)), tokens.info(token, 50));

    // verify-only: the public key alone checks the same token and cannot sign
    TokenProvider verifier = provider("jwt,pub-key=" + pub + ",sign-method=" + method);
    assertEquals(Optional.of(new AuthInfo("alice", 42)), verifier.info(token, 50));
    EtcdException e = assertThrows(EtcdException.class, () -> verifier.assign("alice", 42, "", 8));
    assertEquals("auth: token signing attempted with verify-only key", e.getMessage());
    assertEquals(ErrorCode.UNKNOWN, e.error().code());
  }

  @Test
  void pkcs8PrivateKeyAloneSignsAndVerifies() throws Exception {
    for (String method : new String[] {"RS256", "ES256"}) {
      KeyPair kp = keys(method);
      Path priv = pem("p8-" + method + ".pem", new JcaPKCS8Generator(kp.getPrivate(), null).generate());
      assertTrue(Files.readString(priv).startsWith("-----BEGIN PRIVATE KEY-----"));
      TokenProvider tokens = provider("jwt,priv-key=" + priv + ",sign-method=" + method);
      String token = tokens.assign("bob", 3, "", 1);
      assertEquals(Optional.of(new AuthInfo("bob", 3)), tokens.info(token, 3));
      Path pub = pem("pub-" + method + ".pem", kp.getPublic());
      assertEquals(Optional.of(new AuthInfo("bob", 3)),
          provider("jwt,pub-key=" + pub + ",sign-method=" + method).info(token, 3));
    }
  }

  @Test
  void sec1PrivateKeyAsOpensslWritesIt() throws Exception {
    KeyPair kp = keys("ES256");
    java.security.interfaces.ECPrivateKey priv = (java.security.interfaces.ECPrivateKey) kp.getPrivate();
    org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, priv.getS(),
        org.bouncycastle.asn1.x509.SubjectPublicKeyInfo.getInstance(kp.getPublic().getEncoded()).getPublicKeyData(),
        org.bouncycastle.asn1.sec.SECObjectIdentifiers.secp256r1);
    Path file = pem("sec1.pem", new org.bouncycastle.util.io.pem.PemObject("EC PRIVATE KEY", sec1.getEncoded()));
    TokenProvider tokens = provider("jwt,priv-key=" + file + ",sign-method=ES256");
    Path pub = pem("pub.pem", kp.getPublic());
    assertEquals(Optional.of(new AuthInfo("c", 2)),
        provider("jwt,pub-key=" + pub + ",sign-method=ES256").info(tokens.assign("c", 2, "", 1), 2));
  }

  @Test
  void expiresAfterTtlInWholeSeconds() throws Exception {
    KeyPair kp = keys("RS256");
    Path priv = pem("priv.pem", kp.getPrivate());
    TokenProvider tokens = provider("jwt,priv-key=" + priv + ",sign-method=RS256,ttl=10s");
    String token = tokens.assign("alice", 1, "", 1);
    now.set(now.get().plusSeconds(10));
    assertTrue(tokens.info(token, 1).isPresent()); // valid while now <= exp
    now.set(now.get().plusSeconds(1));
    assertEquals(Optional.empty(), tokens.info(token, 1));
    assertEquals(Duration.ofMinutes(5), ((JwtTokens) provider("jwt,priv-key=" + priv + ",sign-method=RS256")).ttl());
  }

  @Test
  void rejectsOtherMethodsForgeriesAndGarbage() throws Exception {
    KeyPair kp = keys("RS256");
    Path priv = pem("priv.pem", kp.getPrivate());
    String token = provider("jwt,priv-key=" + priv + ",sign-method=RS256").assign("alice", 1, "", 1);
    assertEquals(Optional.empty(), provider("jwt,priv-key=" + priv + ",sign-method=RS384").info(token, 1));
    Path other = pem("other.pem", keys("RS256").getPrivate());
    assertEquals(Optional.empty(), provider("jwt,priv-key=" + other + ",sign-method=RS256").info(token, 1));
    String[] parts = token.split("\\.");
    String forged = parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding()
        .encodeToString("{\"username\":\"root\",\"revision\":1}".getBytes()) + "." + parts[2];
    TokenProvider same = provider("jwt,priv-key=" + priv + ",sign-method=RS256");
    assertEquals(Optional.empty(), same.info(forged, 1));
    assertEquals(Optional.empty(), same.info("not-a-token", 1));
    assertEquals(Optional.empty(), same.info("aaaaaaaaaaaaaaaa.3", 1));
  }

  @Test
  void hmacSecretFromThePrivateKeyFile() throws Exception {
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "0123456789abcdef0123456789abcdef");
    TokenProvider tokens = provider("jwt,priv-key=" + secret + ",sign-method=HS256");
    assertEquals(Optional.of(new AuthInfo("u", 9)), tokens.info(tokens.assign("u", 9, "", 1), 9));
  }

  @Test
  void keyErrorsOfEtcd() throws Exception {
    KeyPair rsa = keys("RS256");
    Path priv = pem("priv.pem", rsa.getPrivate());
    Path otherPub = pem("other.pem", keys("RS256").getPublic());
    Path ecPub = pem("ec.pem", keys("ES384").getPublic());
    Path ecPriv = pem("ecpriv.pem", keys("ES384").getPrivate());
    assertStartup("auth: missing key data", "jwt,sign-method=RS256");
    assertStartup("auth: missing key data", "jwt,sign-method=ES256");
    assertStartup("auth: public and private keys don't match",
        "jwt,priv-key=" + priv + ",pub-key=" + otherPub + ",sign-method=RS256");
    assertStartup("Key is not a valid RSA public key", "jwt,pub-key=" + ecPub + ",sign-method=RS256");
    assertStartup("Key is not a valid ECDSA private key", "jwt,priv-key=" + priv + ",sign-method=ES256");
    assertStartup("key is invalid", "jwt,priv-key=" + ecPriv + ",sign-method=ES256"); // P-384 key for ES256
    Path junk = dir.resolve("junk.pem");
    Files.writeString(junk, "not pem");
    assertStartup("Invalid Key: Key must be PEM encoded PKCS1 or PKCS8 private key",
        "jwt,priv-key=" + junk + ",sign-method=RS256");
  }

  @Test
  void optionStringsEtcdRejects() {
    String invalid = "auth: invalid auth options";
    assertStartup(invalid, "bogus");
    assertStartup(invalid, "simple,ttl");
    assertStartup(invalid, "jwt,a=b=c");
    assertStartup(invalid, "jwt,ttl=5m,ttl=6m");
    assertStartup(invalid, "jwt"); // no sign-method
    assertStartup(invalid, "jwt,sign-method=rs256");
    assertStartup(invalid, "jwt,sign-method=RS256,priv-key=" + dir.resolve("absent.pem"));
    assertStartup(invalid, "jwt,sign-method=RS256,ttl=five");
  }

  @Test
  void simpleAndNopProviders() {
    assertInstanceOf(SimpleTokens.class, provider("simple"));
    assertInstanceOf(SimpleTokens.class, provider("simple,unused=1"));
    TokenProvider nop = provider("");
    assertInstanceOf(NopTokens.class, nop);
    EtcdException e = assertThrows(EtcdException.class, () -> nop.assign("a", 1, "", 1));
    assertEquals("etcdserver: authentication failed, invalid user ID or password", e.getMessage());
    assertEquals(Optional.empty(), nop.info("x.1", 1));
    AuthTokenOptions jwt = AuthTokenOptions.parse("jwt,pub-key=a,priv-key=b,sign-method=RS256,ttl=5m");
    assertEquals("jwt", jwt.type());
    assertEquals("5m", jwt.options().get("ttl"));
  }

  private void assertStartup(String text, String flag) {
    StartupException e = assertThrows(StartupException.class, () -> provider(flag));
    assertEquals(text, e.getMessage());
  }
}
