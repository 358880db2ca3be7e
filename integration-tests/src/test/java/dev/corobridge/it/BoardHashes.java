package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The state of every board on one replica as a hash per board: SHA-256 of the board snapshot
 * ({@code GET /api/boards/{id}}: id, name, revision, notes with ids, texts and versions) written as
 * JSON with its keys sorted, so two replicas that hold the same boards give equal maps whatever
 * order their JSON writer uses.
 *
 * <p>Stateless; thread-safe.
 */
final class BoardHashes {

    private static final ObjectMapper CANONICAL = new ObjectMapper()
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private BoardHashes() {
    }

    /** Board id to hash, for every board the replica lists. */
    static Map<String, String> of(Http http) {
        Map<String, String> hashes = new TreeMap<>();
        for (JsonNode board : http.get("/api/boards").expect(200)) {
            String id = board.path("id").asText();
            hashes.put(id, hash(http.get("/api/boards/" + id).expect(200)));
        }
        return hashes;
    }

    static String hash(JsonNode snapshot) {
        try {
            // Via a tree of sorted maps: ORDER_MAP_ENTRIES_BY_KEYS sorts maps, not ObjectNodes.
            Object sorted = CANONICAL.treeToValue(snapshot, Object.class);
            byte[] canonical = CANONICAL.writeValueAsString(sorted).getBytes(StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
