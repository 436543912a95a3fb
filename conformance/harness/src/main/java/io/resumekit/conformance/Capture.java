package io.resumekit.conformance;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import java.util.ArrayList;
import java.util.List;

/** Records Flink's "Skipping … savepoint state for operator …" lines (Checkpoints, INFO). */
final class Capture extends AbstractAppender {
    private static final List<String> LINES = new ArrayList<>();
    private static boolean installed;

    private Capture() {
        super("conformance-capture", null, null, true, Property.EMPTY_ARRAY);
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Capture c = new Capture();
        c.start();
        LoggerConfig lc = ctx.getConfiguration().getLoggerConfig("org.apache.flink.runtime.checkpoint.Checkpoints");
        lc.addAppender(c, org.apache.logging.log4j.Level.INFO, null);
        ctx.updateLoggers();
        installed = true;
    }

    @Override
    public void append(LogEvent e) {
        String m = e.getMessage().getFormattedMessage();
        if (m.startsWith("Skipping")) {
            synchronized (LINES) {
                LINES.add(m);
            }
        }
    }

    static void clear() {
        install();
        synchronized (LINES) {
            LINES.clear();
        }
    }

    static List<String> lines() {
        synchronized (LINES) {
            return new ArrayList<>(LINES);
        }
    }
}
