# Shared by Scripts/bench/server and Scripts/schemathesis (source it, do not run it):
# starts a uniti-server binary on a free loopback port with a fresh database, one public study
# with a questionnaire, and one activated, logged-in participant who joined it.
# Sets: FIXTURE_DIR, SERVER_PID, PORT, BASE, TOKEN, DATABASE. Call fixture_stop when done.

fixture_start() {
    local binary="$1"
    FIXTURE_DIR="$(mktemp -d)"
    DATABASE="$FIXTURE_DIR/server.sqlite"
    local spool="$FIXTURE_DIR/spool"
    "$binary" study create bench --title "Benchmark study" --modules tyt --database "$DATABASE" >/dev/null
    cat > "$FIXTURE_DIR/daily.json" <<'JSON'
{"id": "daily", "version": 1, "title": {"en": "Daily"}, "kind": "oneTime",
 "items": [
   {"type": "slider", "label": "loudness", "required": true, "text": {"en": "How loud?"}, "min": 0, "max": 100, "step": 1},
   {"type": "singleChoice", "label": "mood", "text": {"en": "Mood?"},
    "options": [{"value": 1, "text": {"en": "bad"}}, {"value": 2, "text": {"en": "so-so"}}, {"value": 3, "text": {"en": "good"}}]}
 ]}
JSON
    "$binary" questionnaire import "$FIXTURE_DIR/daily.json" --study bench --database "$DATABASE" >/dev/null
    "$binary" serve --port 0 --database "$DATABASE" --mail-spool "$spool" --bcrypt-cost 4 > "$FIXTURE_DIR/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        PORT="$(grep -o "127.0.0.1:[0-9]*" "$FIXTURE_DIR/server.log" 2>/dev/null | head -1 | cut -d: -f2 || true)"
        [ -n "$PORT" ] && break
        sleep 0.1
    done
    [ -n "$PORT" ] || { echo "server did not start:"; cat "$FIXTURE_DIR/server.log"; exit 1; }
    BASE="http://127.0.0.1:$PORT"
    curl -sf -X POST "$BASE/api/v1/account/register" -H 'Content-Type: application/json' \
        -d '{"username":"bench","email":"bench@example.org","password":"benchpassword"}' >/dev/null
    # The server mails just after it answers: wait for the code.
    local code=""
    for _ in $(seq 1 200); do
        code="$(grep -hs '^    ' "$spool"/*.eml | head -1 | tr -d ' \r' || true)"
        [ -n "$code" ] && break
        sleep 0.1
    done
    curl -sf -X POST "$BASE/api/v1/account/activate" -H 'Content-Type: application/json' -d "{\"token\":\"$code\"}" >/dev/null
    TOKEN="$(curl -sf -X POST "$BASE/api/v1/account/login" -H 'Content-Type: application/json' \
        -d '{"login":"bench","password":"benchpassword"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])')"
    curl -sf -X POST "$BASE/api/v1/studies/bench/join" -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' -d '{}' >/dev/null
}

fixture_stop() {
    if [ -n "${SERVER_PID:-}" ]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    [ -n "${FIXTURE_DIR:-}" ] && rm -rf "$FIXTURE_DIR"
    return 0
}
