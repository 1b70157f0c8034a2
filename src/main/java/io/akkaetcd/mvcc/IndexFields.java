package io.akkaetcd.mvcc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.IOException;

/**
 * What the key index needs of a stored {@link KeyValue}, read from its bytes without building the
 * message or copying its value (the value is most of a row).
 */
record IndexFields(byte[] key, long createRevision, long version, long lease) {
  static IndexFields parse(byte[] bytes) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(bytes);
      byte[] key = new byte[0];
      long create = 0;
      long version = 0;
      long lease = 0;
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case KeyValue.KEY_FIELD_NUMBER -> key = in.readByteArray();
          case KeyValue.CREATE_REVISION_FIELD_NUMBER -> create = in.readInt64();
          case KeyValue.VERSION_FIELD_NUMBER -> version = in.readInt64();
          case KeyValue.LEASE_FIELD_NUMBER -> lease = in.readInt64();
          default -> in.skipField(tag);
        }
      }
      return new IndexFields(key, create, version, lease);
    } catch (IOException e) {
      throw new IllegalStateException("corrupt revision in the MVCC store", e);
    }
  }
}
