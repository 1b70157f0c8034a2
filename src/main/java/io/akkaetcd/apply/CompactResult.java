package io.akkaetcd.apply;

import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import java.util.concurrent.CompletionStage;

/**
 * A compaction's response and the stage that completes once the compaction is durable on disk:
 * a client asking for {@code physical=true} is answered only after {@code durable} completes.
 */
public record CompactResult(CompactionResponse response, CompletionStage<Void> durable) {}
