package io.akkaetcd.raft;

import com.google.protobuf.ByteString;

/**
 * The answer to a read-index request: a read for {@code requestCtx} is linearizable once the
 * state machine has applied {@code index} (Raft thesis §6.4).
 */
public record ReadState(long index, ByteString requestCtx) {}
