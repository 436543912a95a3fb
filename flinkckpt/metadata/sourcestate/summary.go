package sourcestate

// Summary is one source operator's positions in the JSON shape resumectl
// prints ("resumectl flink sources"): operator_id, uid (when known), kind
// and positions — KafkaPosition, PaimonPosition, MySQLPosition or
// PostgresPosition values ({"slot", "lsn", "tx_id", "ts_usec"}) —
// beside the split serializer version (for unknown sources: what was
// found) and notes (what was left out, and why a source has no position).
type Summary struct {
	OperatorID string `json:"operator_id"`
	UID        string `json:"uid,omitempty"`
	Kind       Kind   `json:"kind"`
	// SplitVersion is nil when the reader state holds no split.
	SplitVersion *int32   `json:"split_version,omitempty"`
	Positions    []any    `json:"positions"`
	Notes        []string `json:"notes,omitempty"`
	// Error is the source's Err as text.
	Error string `json:"error,omitempty"`
}

// Summary returns the source's positions: every Kafka partition's, the
// Paimon snapshot to read next, or the MySQL binlog position; none for an
// unknown source, or when the state holds no position (a note says why).
func (s *Source) Summary() Summary {
	out := Summary{OperatorID: s.OperatorID, UID: s.UID, Kind: s.Kind, Positions: []any{}, Notes: append([]string(nil), s.Notes...)}
	if s.SplitVersion >= 0 {
		v := s.SplitVersion
		out.SplitVersion = &v
	}
	if s.Err != nil {
		out.Error = s.Err.Error()
	}
	switch {
	case s.Kafka != nil:
		ps, notes := s.Kafka.Positions()
		for _, p := range ps {
			out.Positions = append(out.Positions, p)
		}
		out.Notes = append(out.Notes, notes...)
	case s.Paimon != nil:
		p, ok, why := s.Paimon.Position()
		if ok {
			out.Positions = append(out.Positions, p)
		} else {
			out.Notes = append(out.Notes, why)
		}
	case s.MySQL != nil:
		p, notes, err := s.MySQL.Position()
		if err != nil {
			out.Notes = append(out.Notes, err.Error())
		} else {
			out.Positions = append(out.Positions, p)
		}
		out.Notes = append(out.Notes, notes...)
	case s.Postgres != nil:
		p, notes, err := s.Postgres.Position()
		if err != nil {
			out.Notes = append(out.Notes, err.Error())
		} else {
			out.Positions = append(out.Positions, p)
		}
		out.Notes = append(out.Notes, notes...)
	}
	return out
}
