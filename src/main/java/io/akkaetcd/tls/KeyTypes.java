package io.akkaetcd.tls;

import java.security.Key;

/** JSSE's key type names ("RSA", "EC") for a key, whichever provider made it. */
final class KeyTypes {
  private KeyTypes() {}

  static String of(Key key) {
    String algorithm = key.getAlgorithm();
    return algorithm.equals("ECDSA") ? "EC" : algorithm;
  }
}
