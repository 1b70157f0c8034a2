package io.akkaetcd.mvcc;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.util.Map;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.ReadOptions;

/**
 * A forward LevelDB iterator for long scans. leveldbjni's {@code DBIterator} costs about 14 native
 * calls a row (validity asked twice, a status check after each key, value and step, a boxed entry);
 * this one calls leveldbjni 1.8's own natives, which are private, through method handles: validity,
 * key, value and step once each, and the status once at the end, as LevelDB's iterator contract
 * allows. Where the natives are not found (another leveldbjni) it falls back to {@code DBIterator}.
 * Not thread-safe; the caller holds the backend open while it is open.
 */
final class RowCursor implements AutoCloseable {
  private static final Natives NATIVES = Natives.find();

  private final DBIterator iterator;
  private final long self;
  private final Object slice;
  private Map.Entry<byte[], byte[]> fallback;

  RowCursor(DB db, ReadOptions options) {
    iterator = db.iterator(options);
    long handle = 0;
    Object s = null;
    if (NATIVES != null) {
      try {
        handle = (long) NATIVES.self.get(NATIVES.iterator.get(iterator));
        s = NATIVES.newSlice.invoke();
      } catch (Throwable e) {
        handle = 0;
      }
    }
    self = handle;
    slice = s;
  }

  /** True when leveldbjni's natives were found (else every cursor uses {@code DBIterator}). */
  static boolean direct() {
    return NATIVES != null;
  }

  /** Positions at the first row at or after {@code key}. */
  void seek(byte[] key) {
    iterator.seek(key);
    fallback = null;
  }

  boolean valid() throws IOException {
    if (self == 0) {
      if (fallback == null && iterator.hasNext()) {
        fallback = iterator.peekNext();
      }
      return fallback != null;
    }
    try {
      return (boolean) NATIVES.valid.invokeExact(self);
    } catch (Throwable e) {
      throw failed(e);
    }
  }

  /** The current row's key; only while {@link #valid}. */
  byte[] key() throws IOException {
    return self == 0 ? fallback.getKey() : copy(NATIVES.key);
  }

  /** The current row's value; only while {@link #valid}. */
  byte[] value() throws IOException {
    return self == 0 ? fallback.getValue() : copy(NATIVES.value);
  }

  /** The current row's value's length, without copying it; only while {@link #valid}. */
  int valueSize() throws IOException {
    if (self == 0) {
      return fallback.getValue().length;
    }
    try {
      long ptr = (long) NATIVES.value.invokeExact(self);
      try {
        NATIVES.read.invokeExact(slice, ptr, 0);
        return Math.toIntExact((long) NATIVES.size.invokeExact(slice));
      } finally {
        NATIVES.deleteSlice.invokeExact(ptr);
      }
    } catch (Throwable e) {
      throw failed(e);
    }
  }

  /** Appends the current row's key to {@code out} and returns its length; only while {@link #valid}. */
  int appendKey(ChunkBytes out) throws IOException {
    return self == 0 ? append(fallback.getKey(), out) : copyInto(NATIVES.key, out);
  }

  /** Appends the current row's value to {@code out} and returns its length; only while {@link #valid}. */
  int appendValue(ChunkBytes out) throws IOException {
    return self == 0 ? append(fallback.getValue(), out) : copyInto(NATIVES.value, out);
  }

  private static int append(byte[] b, ChunkBytes out) {
    out.append(b);
    return b.length;
  }

  /** Steps to the next row; at the end, throws if the iterator stopped on an error. */
  void next() throws IOException {
    if (self == 0) {
      iterator.next();
      fallback = null;
      return;
    }
    try {
      NATIVES.next.invokeExact(self);
      if (!(boolean) NATIVES.valid.invokeExact(self)) {
        NATIVES.checkStatus.invokeExact((long) NATIVES.status.invokeExact(self));
      }
    } catch (Throwable e) {
      throw failed(e);
    }
  }

  @Override
  public void close() throws IOException {
    iterator.close();
  }

  private byte[] copy(MethodHandle part) throws IOException {
    try {
      long ptr = (long) part.invokeExact(self);
      try {
        NATIVES.read.invokeExact(slice, ptr, 0);
        return (byte[]) NATIVES.toByteArray.invokeExact(slice);
      } finally {
        NATIVES.deleteSlice.invokeExact(ptr);
      }
    } catch (Throwable e) {
      throw failed(e);
    }
  }

  /** Copies the slice from native memory straight into {@code out}: no array per row. */
  private int copyInto(MethodHandle part, ChunkBytes out) throws IOException {
    try {
      long ptr = (long) part.invokeExact(self);
      try {
        NATIVES.read.invokeExact(slice, ptr, 0);
        int n = Math.toIntExact((long) NATIVES.size.invokeExact(slice));
        byte[] into = out.reserve(n);
        NATIVES.bufferCopy.invokeExact((long) NATIVES.data.invokeExact(slice), 0L, into, (long) out.length(), (long) n);
        out.advance(n);
        return n;
      } finally {
        NATIVES.deleteSlice.invokeExact(ptr);
      }
    } catch (Throwable e) {
      throw failed(e);
    }
  }

  private static IOException failed(Throwable e) {
    return e instanceof IOException io ? io : new IOException("leveldb iterator: " + e, e);
  }

  /** leveldbjni 1.8's iterator, slice and buffer natives (NativeIterator.IteratorJNI, NativeSlice, NativeBuffer). */
  private record Natives(Field iterator, Field self, MethodHandle valid, MethodHandle key, MethodHandle value,
      MethodHandle next, MethodHandle status, MethodHandle checkStatus, MethodHandle newSlice, MethodHandle read,
      MethodHandle toByteArray, MethodHandle size, MethodHandle data, MethodHandle bufferCopy, MethodHandle deleteSlice) {
    private static final String PKG = "org.fusesource.leveldbjni.internal.";

    static Natives find() {
      try {
        MethodHandles.Lookup here = MethodHandles.lookup();
        Class<?> jniIterator = Class.forName(PKG + "JniDBIterator");
        Class<?> nativeObject = Class.forName(PKG + "NativeObject");
        Class<?> iteratorJni = Class.forName(PKG + "NativeIterator$IteratorJNI");
        Class<?> nativeSlice = Class.forName(PKG + "NativeSlice");
        Class<?> sliceJni = Class.forName(PKG + "NativeSlice$SliceJNI");
        Class<?> nativeDb = Class.forName(PKG + "NativeDB");
        Class<?> bufferJni = Class.forName(PKG + "NativeBuffer$NativeBufferJNI");
        Field iterator = jniIterator.getDeclaredField("iterator");
        iterator.setAccessible(true);
        Field self = nativeObject.getDeclaredField("self");
        self.setAccessible(true);
        MethodHandles.Lookup it = MethodHandles.privateLookupIn(iteratorJni, here);
        MethodHandles.Lookup sl = MethodHandles.privateLookupIn(nativeSlice, here);
        MethodType ofHandle = MethodType.methodType(long.class, long.class);
        return new Natives(iterator, self,
            it.findStatic(iteratorJni, "Valid", MethodType.methodType(boolean.class, long.class)),
            it.findStatic(iteratorJni, "key", ofHandle),
            it.findStatic(iteratorJni, "value", ofHandle),
            it.findStatic(iteratorJni, "Next", MethodType.methodType(void.class, long.class)),
            it.findStatic(iteratorJni, "status", ofHandle),
            MethodHandles.privateLookupIn(nativeDb, here)
                .findStatic(nativeDb, "checkStatus", MethodType.methodType(void.class, long.class)),
            sl.findConstructor(nativeSlice, MethodType.methodType(void.class)).asType(MethodType.methodType(Object.class)),
            sl.findVirtual(nativeSlice, "read", MethodType.methodType(void.class, long.class, int.class))
                .asType(MethodType.methodType(void.class, Object.class, long.class, int.class)),
            sl.findVirtual(nativeSlice, "toByteArray", MethodType.methodType(byte[].class))
                .asType(MethodType.methodType(byte[].class, Object.class)),
            sl.findVirtual(nativeSlice, "size", MethodType.methodType(long.class))
                .asType(MethodType.methodType(long.class, Object.class)),
            sl.findVirtual(nativeSlice, "data", MethodType.methodType(long.class))
                .asType(MethodType.methodType(long.class, Object.class)),
            MethodHandles.privateLookupIn(bufferJni, here).findStatic(bufferJni, "buffer_copy",
                MethodType.methodType(void.class, long.class, long.class, byte[].class, long.class, long.class)),
            MethodHandles.privateLookupIn(sliceJni, here)
                .findStatic(sliceJni, "delete", MethodType.methodType(void.class, long.class)));
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }
  }
}
