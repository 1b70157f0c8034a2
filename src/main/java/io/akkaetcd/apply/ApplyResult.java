package io.akkaetcd.apply;

import com.google.protobuf.Message;
import io.akkaetcd.proto.mvccpb.Event;
import java.util.List;

/**
 * The outcome of applying one KV raft entry: the response for the client (header.revision set,
 * the API fills in the rest of the header) and the events its writes produced, in write order,
 * all at one revision (empty when nothing was written). The events are for the watch hub.
 */
public record ApplyResult<R extends Message>(R response, List<Event> events) {
  public ApplyResult {
    events = List.copyOf(events);
  }
}
