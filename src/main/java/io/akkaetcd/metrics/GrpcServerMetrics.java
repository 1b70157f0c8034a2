package io.akkaetcd.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * go-grpc-prometheus's server metrics as etcd registers them: grpc_server_started_total,
 * grpc_server_handled_total (with grpc_code by Go name), grpc_server_msg_{received,sent}_total,
 * and grpc_server_handling_seconds only with {@code --metrics=extensive}. Every series of etcd's
 * methods exists from the start at zero, as etcd pre-registers them. A call costs one map lookup
 * and lock-free adds: each method's data points are resolved once and kept.
 */
public final class GrpcServerMetrics {
  private static final String[] METHOD_LABELS = {"grpc_type", "grpc_service", "grpc_method"};

  private final Counter started;
  private final Counter handled;
  private final Counter msgReceived;
  private final Counter msgSent;
  private final Histogram handling;
  private final ConcurrentHashMap<String, Series> byMethod = new ConcurrentHashMap<>();

  GrpcServerMetrics(PrometheusRegistry registry, boolean extensive) {
    started = Counter.builder().name("grpc_server_started_total")
        .help("Total number of RPCs started on the server.").labelNames(METHOD_LABELS).register(registry);
    handled = Counter.builder().name("grpc_server_handled_total")
        .help("Total number of RPCs completed on the server, regardless of success or failure.")
        .labelNames("grpc_type", "grpc_service", "grpc_method", "grpc_code").register(registry);
    msgReceived = Counter.builder().name("grpc_server_msg_received_total")
        .help("Total number of RPC stream messages received on the server.").labelNames(METHOD_LABELS)
        .register(registry);
    msgSent = Counter.builder().name("grpc_server_msg_sent_total")
        .help("Total number of gRPC stream messages sent by the server.").labelNames(METHOD_LABELS)
        .register(registry);
    handling = extensive ? Histogram.builder().name("grpc_server_handling_seconds")
        .help("Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.")
        .labelNames(METHOD_LABELS).classicOnly().classicUpperBounds(Buckets.DEFAULT).register(registry) : null;
    GrpcMethods.TYPES.keySet().forEach(this::series);
  }

  /** A call of {@code fullMethod} ({@code /etcdserverpb.KV/Put}) started. */
  public void started(String fullMethod) {
    series(fullMethod).started.inc();
  }

  /** One message of a call was received (a unary call's request counts once). */
  public void received(String fullMethod) {
    series(fullMethod).received.inc();
  }

  /** One message of a call was sent (a unary call's response counts once, on success). */
  public void sent(String fullMethod) {
    series(fullMethod).sent.inc();
  }

  /**
   * A call ended with gRPC code number {@code code} after {@code nanos}.
   */
  public void handled(String fullMethod, int code, long nanos) {
    Series s = series(fullMethod);
    s.handled[code >= 0 && code < s.handled.length ? code : 2].inc();
    if (s.handling != null) {
      s.handling.observe(nanos / 1e9);
    }
  }

  private Series series(String fullMethod) {
    Series s = byMethod.get(fullMethod);
    return s != null ? s : byMethod.computeIfAbsent(fullMethod, this::newSeries);
  }

  private Series newSeries(String fullMethod) {
    int slash = fullMethod.indexOf('/', 1);
    String service = slash > 0 ? fullMethod.substring(1, slash) : fullMethod;
    String method = slash > 0 ? fullMethod.substring(slash + 1) : fullMethod;
    String type = GrpcMethods.type(fullMethod);
    CounterDataPoint[] codes = new CounterDataPoint[GrpcCodes.NAMES.size()];
    for (int i = 0; i < codes.length; i++) {
      codes[i] = handled.labelValues(type, service, method, GrpcCodes.NAMES.get(i));
    }
    return new Series(started.labelValues(type, service, method), msgReceived.labelValues(type, service, method),
        msgSent.labelValues(type, service, method), codes,
        handling == null ? null : handling.labelValues(type, service, method));
  }

  private record Series(CounterDataPoint started, CounterDataPoint received, CounterDataPoint sent,
      CounterDataPoint[] handled, DistributionDataPoint handling) {}
}
