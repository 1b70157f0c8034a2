package io.akkaetcd.auth;

import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.io.StringReader;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * The PEM keys of {@code --auth-token jwt,pub-key=F,priv-key=F}: a private key as PKCS#1, SEC1
 * or PKCS#8, a public key as PKCS#8 SubjectPublicKeyInfo or a certificate (what Go's jwt
 * library reads), with etcd's errors: neither key is "auth: missing key data", a public key
 * other than the private key's is "auth: public and private keys don't match", an unreadable
 * key golang-jwt's text.
 */
final class JwtKeys {
  static final String MISSING_KEY = "auth: missing key data";
  static final String KEY_MISMATCH = "auth: public and private keys don't match";
  static final String NOT_PEM = "Invalid Key: Key must be PEM encoded PKCS1 or PKCS8 private key";

  /** The signing family of a sign-method. */
  enum Family { RSA, EC }

  private static final JcaPEMKeyConverter CONVERTER = new JcaPEMKeyConverter();

  private JwtKeys() {}

  /**
   * The key pair for signing and verifying; its private key is null when only a public key was
   * given (verify-only).
   */
  static KeyPair load(Family family, String privatePem, String publicPem) {
    KeyPair fromPrivate = privatePem == null ? null : privateKey(family, privatePem);
    PublicKey given = publicPem == null ? null : publicKey(family, publicPem);
    if (fromPrivate == null) {
      if (given == null) {
        throw new StartupException(MISSING_KEY);
      }
      return new KeyPair(given, null);
    }
    if (given != null && !samePublic(given, fromPrivate.getPublic())) {
      throw new StartupException(KEY_MISMATCH);
    }
    return fromPrivate;
  }

  private static KeyPair privateKey(Family family, String pem) {
    Object o = firstKey(pem);
    if (!(o instanceof PEMKeyPair || o instanceof PrivateKeyInfo)) {
      throw new StartupException(NOT_PEM);
    }
    return converted(family, "private", () -> {
      if (o instanceof PEMKeyPair kp && kp.getPublicKeyInfo() != null) {
        return CONVERTER.getKeyPair(kp);
      }
      // PKCS#8, or SEC1 without its optional public key
      return derived(o instanceof PEMKeyPair kp ? kp.getPrivateKeyInfo() : (PrivateKeyInfo) o);
    });
  }

  private static PublicKey publicKey(Family family, String pem) {
    Object o = firstKey(pem);
    if (!(o instanceof SubjectPublicKeyInfo || o instanceof X509CertificateHolder)) {
      throw new StartupException(notValid(family, "public"));
    }
    return converted(family, "public", () -> CONVERTER.getPublicKey(
        o instanceof X509CertificateHolder cert ? cert.getSubjectPublicKeyInfo() : (SubjectPublicKeyInfo) o));
  }

  private interface KeyReader<T> {
    T read() throws IOException;
  }

  /** The key read, if it is of the family; golang-jwt's "not a valid ... key" otherwise. */
  private static <T> T converted(Family family, String which, KeyReader<T> reader) {
    T key;
    try {
      key = reader.read();
    } catch (IOException | RuntimeException e) {
      throw new StartupException(notValid(family, which), e);
    }
    PublicKey pub = key instanceof KeyPair kp ? kp.getPublic() : (PublicKey) key;
    if (!matches(family, pub)) {
      throw new StartupException(notValid(family, which));
    }
    return key;
  }

  /** The first key-bearing PEM block (EC PARAMETERS blocks before an EC key are skipped). */
  private static Object firstKey(String pem) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PEMKeyPair || o instanceof PrivateKeyInfo || o instanceof SubjectPublicKeyInfo
            || o instanceof X509CertificateHolder) {
          return o;
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new StartupException(NOT_PEM, e);
    }
    throw new StartupException(NOT_PEM);
  }

  /** The pair of a private key given alone: its public key computed from it. */
  private static KeyPair derived(PrivateKeyInfo info) throws IOException {
    PrivateKey priv = CONVERTER.getPrivateKey(info);
    return new KeyPair(CONVERTER.getPublicKey(publicOf(PrivateKeyFactory.createKey(info))), priv);
  }

  private static SubjectPublicKeyInfo publicOf(AsymmetricKeyParameter priv) throws IOException {
    AsymmetricKeyParameter pub;
    if (priv instanceof RSAPrivateCrtKeyParameters rsa) {
      pub = new RSAKeyParameters(false, rsa.getModulus(), rsa.getPublicExponent());
    } else if (priv instanceof ECPrivateKeyParameters ec) {
      pub = new ECPublicKeyParameters(ec.getParameters().getG().multiply(ec.getD()).normalize(), ec.getParameters());
    } else {
      throw new IOException("not an RSA or EC private key");
    }
    return SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(pub);
  }

  private static boolean matches(Family family, PublicKey key) {
    return family == Family.RSA ? key instanceof RSAPublicKey : key instanceof ECPublicKey;
  }

  private static boolean samePublic(PublicKey a, PublicKey b) {
    if (a instanceof RSAPublicKey ra && b instanceof RSAPublicKey rb) {
      return ra.getModulus().equals(rb.getModulus()) && ra.getPublicExponent().equals(rb.getPublicExponent());
    }
    if (a instanceof ECPublicKey ea && b instanceof ECPublicKey eb) {
      return ea.getW().equals(eb.getW());
    }
    return false;
  }

  /** golang-jwt's ErrNotRSAPrivateKey, ErrNotECPublicKey and their kin. */
  private static String notValid(Family family, String which) {
    return "Key is not a valid " + (family == Family.RSA ? "RSA" : "ECDSA") + " " + which + " key";
  }
}
