package io.akkaetcd.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.StartupException;
import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.Optional;

/**
 * etcd's JWT tokens ({@code --auth-token jwt,...}): claims {username, revision, exp}, signed with
 * the configured method (RS256/384/512, PS256/384/512, ES256/384/512, HS256/384/512). A token
 * carries the auth revision it was issued at, so any auth change after it makes it old (etcd's
 * "revision of auth store is old", and clients authenticate again). Verify-only when only a
 * public key is given: Authenticate then fails as in etcd. Stateless (a token cannot be taken
 * back before it expires or the revision moves), thread-safe; the clock is injected.
 */
public final class JwtTokens implements TokenProvider {
  public static final Duration DEFAULT_TTL = Duration.ofMinutes(5);

  private final JWSAlgorithm algorithm;
  private final JWSSigner signer;
  private final JWSVerifier verifier;
  private final Duration ttl;
  private final Clock clock;

  private JwtTokens(JWSAlgorithm algorithm, JWSSigner signer, JWSVerifier verifier, Duration ttl, Clock clock) {
    this.algorithm = algorithm;
    this.signer = signer;
    this.verifier = verifier;
    this.ttl = ttl;
    this.clock = clock;
  }

  /** Tokens signed and checked with an RSA or EC key pair (private key null: verify-only). */
  static JwtTokens withKeys(JWSAlgorithm algorithm, KeyPair keys, Duration ttl, Clock clock) {
    try {
      JWSSigner signer = null;
      JWSVerifier verifier;
      if (keys.getPublic() instanceof RSAPublicKey rsa) {
        verifier = new RSASSAVerifier(rsa);
        signer = keys.getPrivate() == null ? null : new RSASSASigner(keys.getPrivate(), true);
      } else {
        verifier = new ECDSAVerifier((ECPublicKey) keys.getPublic());
        signer = keys.getPrivate() == null ? null : new ECDSASigner((ECPrivateKey) keys.getPrivate());
      }
      if (!verifier.supportedJWSAlgorithms().contains(algorithm)) {
        throw new StartupException("key is invalid"); // golang-jwt's ErrInvalidKey: a curve not of the method
      }
      return new JwtTokens(algorithm, signer, verifier, ttl, clock);
    } catch (JOSEException e) {
      throw new StartupException("key is invalid", e);
    }
  }

  /** Tokens signed and checked with a shared secret (HS*: at least as many bits as the hash). */
  static JwtTokens withSecret(JWSAlgorithm algorithm, byte[] secret, Duration ttl, Clock clock) {
    if (secret.length == 0) {
      throw new StartupException(JwtKeys.MISSING_KEY);
    }
    try {
      return new JwtTokens(algorithm, new MACSigner(secret), new MACVerifier(secret), ttl, clock);
    } catch (JOSEException e) {
      throw new StartupException("the HMAC key of " + algorithm + " is too short: " + e.getMessage(), e);
    }
  }

  public JWSAlgorithm algorithm() {
    return algorithm;
  }

  public Duration ttl() {
    return ttl;
  }

  /** Whether only a public key was given: tokens are checked, never issued. */
  public boolean verifyOnly() {
    return signer == null;
  }

  @Override
  public String assign(String username, long authRevision, String prefix, long index) {
    if (signer == null) {
      throw EtcdError.VERIFY_ONLY.exception();
    }
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .claim("username", username)
        .claim("revision", authRevision)
        .expirationTime(Date.from(Instant.ofEpochSecond(clock.instant().plus(ttl).getEpochSecond())))
        .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(algorithm).type(JOSEObjectType.JWT).build(), claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException("signing a token failed", e);
    }
    return jwt.serialize();
  }

  /**
   * The token's user and revision if its method is this provider's, its signature checks and it
   * has not expired (golang-jwt: valid while now ≤ exp, in seconds; no exp never expires).
   */
  @Override
  public Optional<AuthInfo> info(String token, long authRevision) {
    try {
      SignedJWT jwt = SignedJWT.parse(token);
      if (!jwt.getHeader().getAlgorithm().equals(algorithm) || !jwt.verify(verifier)) {
        return Optional.empty();
      }
      JWTClaimsSet set = jwt.getJWTClaimsSet();
      Map<String, Object> claims = set.getClaims();
      Date exp = set.getExpirationTime();
      if (exp != null && clock.instant().getEpochSecond() > exp.toInstant().getEpochSecond()) {
        return Optional.empty();
      }
      if (claims.get("username") instanceof String user && claims.get("revision") instanceof Number rev) {
        return Optional.of(new AuthInfo(user, rev.longValue()));
      }
      return Optional.empty();
    } catch (ParseException | JOSEException | IllegalStateException e) {
      return Optional.empty();
    }
  }
}
