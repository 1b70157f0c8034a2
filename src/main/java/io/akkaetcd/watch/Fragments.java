package io.akkaetcd.watch;

import com.google.protobuf.CodedOutputStream;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a watch response too large for the client into fragments, for watches created with
 * fragment=true, by etcd's rule (v3rpc sendFragments): a response under the limit, or with a single
 * event, goes whole; otherwise each fragment takes events while it stays under the limit (but at
 * least one), every fragment but the last has fragment=true, and the client joins them.
 */
final class Fragments {
  private Fragments() {}

  /** The fragments of {@code whole}, in order; a list of just {@code whole} when it need not be split. */
  static List<WatchResponse> split(WatchResponse whole, int limit) {
    if (whole.getSerializedSize() < limit || whole.getEventsCount() < 2) {
      return List.of(whole);
    }
    WatchResponse.Builder shell = whole.toBuilder().clearEvents().setFragment(true);
    int shellSize = shell.build().getSerializedSize();
    List<WatchResponse> out = new ArrayList<>();
    List<Event> current = new ArrayList<>();
    int size = shellSize;
    for (Event e : whole.getEventsList()) {
      int eventSize = CodedOutputStream.computeMessageSize(WatchResponse.EVENTS_FIELD_NUMBER, e);
      if (!current.isEmpty() && size + eventSize >= limit) {
        out.add(shell.clone().addAllEvents(current).build());
        current = new ArrayList<>();
        size = shellSize;
      }
      current.add(e);
      size += eventSize;
    }
    out.add(shell.clone().addAllEvents(current).setFragment(false).build());
    return out;
  }
}
