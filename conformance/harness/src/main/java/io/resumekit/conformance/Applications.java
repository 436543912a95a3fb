package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A stage's {@code "otherApplications"}: new-job variants that the information given to
 * {@code resumectl resolve} fits just as well as the stage's own new job (say, a resolve given
 * only the checkpoint root). Flink tries every snapshot with each of them too. A choice must then
 * be a snapshot Flink restores into every one of those jobs; when Flink restores no snapshot into
 * all of them, nothing may be chosen and resolve must fail (exit 1) naming every run's job id —
 * any choice would be wrong for one of the applications.
 */
final class Applications {
    private Applications() {}

    /**
     * Judges the stage; returns true when it is decided here (nothing chosen, as Flink's trials
     * require), false when the ordinary judgement continues.
     */
    static boolean judge(Scenarios h, Path w, JsonNode sc, JsonNode stage, Configuration tconf, MiniCluster mc,
                         List<Scenarios.Snap> snaps, Scenarios.Snap chosenSnap, int rc, String err, List<JsonNode> runFacts,
                         String mode, String tagBase, ObjectNode fl) throws Exception {
        List<Scenarios.Snap> common = new ArrayList<>();
        for (Scenarios.Snap sn : snaps) {
            if (sn.trial.path("restorable").asBoolean()) {
                common.add(sn);
            }
        }
        ArrayNode others = fl.putArray("other_applications");
        int k = 0;
        for (JsonNode other : stage.get("otherApplications")) {
            ObjectNode oo = others.addObject();
            oo.set("variant", other.path("variant"));
            ArrayNode ok = oo.putArray("restorable");
            ArrayNode refused = oo.putArray("not_restorable");
            List<Scenarios.Snap> fits = new ArrayList<>();
            for (Scenarios.Snap sn : snaps) {
                ObjectNode t = h.trial(w, sc, other.path("variant"), tconf, mc, sn, mode, false, tagBase + "-o" + (k++));
                if (t.path("restorable").asBoolean()) {
                    ok.add(sn.uri());
                    fits.add(sn);
                } else {
                    refused.addObject().put("path", sn.uri()).put("error", t.path("error").asText());
                }
            }
            common.retainAll(fits);
        }
        ArrayNode cm = fl.putArray("restorable_into_every_application");
        common.forEach(sn -> cm.add(sn.uri()));
        if (chosenSnap != null) {
            if (!common.contains(chosenSnap)) {
                throw new Scenarios.Mismatch("resumekit chose " + chosenSnap.uri() + " from information that fits "
                        + (1 + stage.get("otherApplications").size()) + " applications, but Flink does not restore it into "
                        + "every one of them (into all: " + cm + ")");
            }
            return false;
        }
        if (!common.isEmpty()) {
            return false; // the ordinary judgement: nothing chosen while Flink restores something
        }
        if (rc != 1) {
            throw new Scenarios.Mismatch("no snapshot restores into every application the resolve fits, so it must fail "
                    + "(exit 1) and list them; it exited " + rc + ": " + err);
        }
        List<String> unnamed = new ArrayList<>();
        for (JsonNode f : runFacts) {
            String id = f.path("jobId").asText();
            if (!id.isEmpty() && !err.contains(id)) {
                unnamed.add(id);
            }
        }
        if (!unnamed.isEmpty()) {
            throw new Scenarios.Mismatch("resolve failed but its error does not name the job dirs " + unnamed + ": " + err);
        }
        fl.put("verdict", "no snapshot restores into every application the resolve fits; resumekit chose nothing and listed them");
        return true;
    }
}
