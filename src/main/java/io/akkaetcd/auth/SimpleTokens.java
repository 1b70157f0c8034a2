package io.akkaetcd.auth;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * etcd's simple tokens: 16 random letters [a-zA-Z], a dot and the Raft index of the
 * Authenticate entry ("sssvIpwfnLAcWAQH.9"). Held in memory by every member (assigned at apply),
 * valid on a member once it has applied that index, for a TTL that every use renews (sliding,
 * {@code --auth-token-ttl}, 300 s by default). Thread-safe; the clock is injected (monotonic
 * nanoseconds).
 */
public final class SimpleTokens implements TokenProvider {
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(300);
  static final String LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static final int PREFIX_LENGTH = 16;

  private record Held(String username, long deadline) {}

  private final Map<String, Held> tokens = new ConcurrentHashMap<>();
  private final long ttlNanos;
  private final LongSupplier nanoClock;
  private final SecureRandom random;
  private volatile boolean enabled;

  /** A TTL of zero or less means etcd's default. */
  public SimpleTokens(Duration ttl, LongSupplier nanoClock, SecureRandom random) {
    this.ttlNanos = (ttl.isZero() || ttl.isNegative() ? DEFAULT_TTL : ttl).toNanos();
    this.nanoClock = nanoClock;
    this.random = random;
  }

  @Override
  public String tokenPrefix() {
    StringBuilder b = new StringBuilder(PREFIX_LENGTH);
    synchronized (random) {
      for (int i = 0; i < PREFIX_LENGTH; i++) {
        b.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
      }
    }
    return b.toString();
  }

  /** While auth is off the token is made but not kept (as etcd's keeper-less provider). */
  @Override
  public String assign(String username, long authRevision, String prefix, long index) {
    String token = prefix + "." + index;
    if (enabled) {
      tokens.put(token, new Held(username, nanoClock.getAsLong() + ttlNanos));
    }
    return token;
  }

  /** The index after the one dot (etcd: exactly two parts, the second a decimal integer). */
  @Override
  public long requiredIndex(String token) {
    int dot = token.indexOf('.');
    if (dot < 0 || token.indexOf('.', dot + 1) >= 0) {
      return -1;
    }
    try {
      long index = Long.parseLong(token.substring(dot + 1));
      return index < 0 ? -1 : index;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A known, unexpired token renews its TTL and stands for its user at the store's revision. */
  @Override
  public Optional<AuthInfo> info(String token, long authRevision) {
    long now = nanoClock.getAsLong();
    Held held = tokens.computeIfPresent(token,
        (t, h) -> now - h.deadline() > 0 ? null : new Held(h.username(), now + ttlNanos));
    return held == null ? Optional.empty() : Optional.of(new AuthInfo(held.username(), authRevision));
  }

  /** Forgets expired tokens (a lookup already refuses them; this bounds the memory). */
  public void expire() {
    long now = nanoClock.getAsLong();
    tokens.values().removeIf(h -> now - h.deadline() > 0);
  }

  @Override
  public void invalidateUser(String username) {
    tokens.values().removeIf(h -> h.username().equals(username));
  }

  @Override
  public void enable() {
    enabled = true;
  }

  @Override
  public void disable() {
    enabled = false;
    tokens.clear();
  }

  /** Tokens held (tests, metrics). */
  public int size() {
    return tokens.size();
  }
}
