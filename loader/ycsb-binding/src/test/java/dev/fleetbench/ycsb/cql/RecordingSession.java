package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Statement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A test double of the driver session that wraps a REAL session: every call goes through to it, except that
 * it records each executed statement and counts prepare() calls, and a fault function may answer an
 * execute() with an exception instead (to stand in for server states a single local node cannot produce on
 * demand, such as OverloadedException).
 */
final class RecordingSession {
  final List<Statement<?>> executed = new CopyOnWriteArrayList<>();
  final AtomicInteger prepares = new AtomicInteger();
  final AtomicInteger executes = new AtomicInteger();
  /** Called before each execute(); a non-null result is thrown instead of executing. */
  volatile Function<Statement<?>, RuntimeException> fault = s -> null;
  final CqlSession session;

  RecordingSession(CqlSession real) {
    this.session = (CqlSession) Proxy.newProxyInstance(CqlSession.class.getClassLoader(),
        new Class<?>[] {CqlSession.class}, (proxy, method, args) -> {
          if (method.getName().equals("prepare")) {
            prepares.incrementAndGet();
          }
          if (method.getName().equals("execute") && args != null && args.length == 1
              && args[0] instanceof Statement) {
            Statement<?> st = (Statement<?>) args[0];
            executes.incrementAndGet();
            executed.add(st);
            RuntimeException e = fault.apply(st);
            if (e != null) {
              throw e;
            }
          }
          return invoke(real, method, args);
        });
  }

  private static Object invoke(CqlSession real, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(real, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
