package io.akkaetcd.auth;

import com.nimbusds.jose.JWSAlgorithm;
import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --auth-token} read as etcd reads it: a type ("simple", the default; "jwt"; "" for no
 * tokens) then comma-separated {@code name=value} options. A pair that is not exactly one '=',
 * a repeated name, an unknown type, and for jwt an unreadable key file, a bad ttl or an unknown
 * sign-method are all "auth: invalid auth options"; unknown jwt options are only logged.
 */
public record AuthTokenOptions(String type, Map<String, String> options) {
  public static final String INVALID_AUTH_OPTS = "auth: invalid auth options";
  private static final Logger LOG = LoggerFactory.getLogger(AuthTokenOptions.class);
  private static final Set<String> JWT_OPTIONS = Set.of("sign-method", "pub-key", "priv-key", "ttl");

  public AuthTokenOptions {
    options = Map.copyOf(options);
  }

  public static AuthTokenOptions parse(String flag) {
    String[] parts = flag.split(",", -1);
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 1; i < parts.length; i++) {
      String[] pair = parts[i].split("=", -1);
      if (pair.length != 2 || opts.containsKey(pair[0])) {
        throw new StartupException(INVALID_AUTH_OPTS);
      }
      opts.put(pair[0], pair[1]);
    }
    if (!Set.of("simple", "jwt", "").contains(parts[0])) {
      throw new StartupException(INVALID_AUTH_OPTS);
    }
    return new AuthTokenOptions(parts[0], opts);
  }

  /**
   * The provider these options describe, on the system clocks.
   *
   * @param simpleTtl {@code --auth-token-ttl} (simple tokens only)
   * @param goDuration the parser of Go durations ("5m") for the jwt ttl option
   */
  public TokenProvider provider(Duration simpleTtl, Function<String, Duration> goDuration, SecureRandom random) {
    return provider(simpleTtl, goDuration, random, System::nanoTime, Clock.systemUTC());
  }

  TokenProvider provider(Duration simpleTtl, Function<String, Duration> goDuration, SecureRandom random,
      LongSupplier nanoClock, Clock clock) {
    return switch (type) {
      case "simple" -> new SimpleTokens(simpleTtl, nanoClock, random);
      case "jwt" -> jwt(goDuration, clock);
      default -> new NopTokens();
    };
  }

  private JwtTokens jwt(Function<String, Duration> goDuration, Clock clock) {
    Duration ttl = JwtTokens.DEFAULT_TTL;
    String privatePem;
    String publicPem;
    JWSAlgorithm algorithm;
    try {
      String t = options.getOrDefault("ttl", "");
      if (!t.isEmpty()) {
        ttl = goDuration.apply(t);
      }
      publicPem = read(options.getOrDefault("pub-key", ""));
      privatePem = read(options.getOrDefault("priv-key", ""));
      algorithm = algorithm(options.getOrDefault("sign-method", ""));
    } catch (IOException | RuntimeException e) {
      throw new StartupException(INVALID_AUTH_OPTS, e);
    }
    options.keySet().stream().filter(k -> !JWT_OPTIONS.contains(k)).sorted()
        .forEach(k -> LOG.warn("unknown JWT option {}", k));
    return switch (algorithm.getName().substring(0, 2)) {
      case "HS" -> JwtTokens.withSecret(algorithm,
          privatePem == null ? new byte[0] : privatePem.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), ttl, clock);
      case "ES" -> JwtTokens.withKeys(algorithm, JwtKeys.load(JwtKeys.Family.EC, privatePem, publicPem), ttl, clock);
      default -> JwtTokens.withKeys(algorithm, JwtKeys.load(JwtKeys.Family.RSA, privatePem, publicPem), ttl, clock);
    };
  }

  /** The file's content, or null when no file is named. */
  private static String read(String file) throws IOException {
    return file.isEmpty() ? null : Files.readString(Path.of(file), java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  /** The methods golang-jwt registers, by their exact (case-sensitive) names. */
  static JWSAlgorithm algorithm(String name) {
    return switch (name) {
      case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384",
          "HS512" -> JWSAlgorithm.parse(name);
      default -> throw new IllegalArgumentException("auth: invalid auth signature method");
    };
  }
}
