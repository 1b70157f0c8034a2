package io.akkaetcd.api.pipeline;

import io.akkaetcd.auth.AuthInfo;
import java.util.function.Supplier;

/**
 * The call a service is being entered for, on the entering thread only: while the pipeline runs
 * the service's synchronous part. A service reads it first thing (etcd's AuthInfoFromCtx) and
 * carries the value on itself; it is gone on any later thread.
 */
public final class CurrentCall {
  private static final ThreadLocal<Call> CURRENT = new ThreadLocal<>();

  private CurrentCall() {}

  static <T> T during(Call call, Supplier<T> body) {
    Call outer = CURRENT.get();
    CURRENT.set(call);
    try {
      return body.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /** The call being entered, or null outside one. */
  public static Call call() {
    return CURRENT.get();
  }

  /** Who the call being entered acts as: null outside a call or for an anonymous one. */
  public static AuthInfo authInfo() {
    Call call = CURRENT.get();
    return call == null ? null : call.authInfo();
  }
}
