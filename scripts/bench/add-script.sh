# Sourced by the black-box benchmarks: add_script N PASSWORD prints a shell script that sets
# up a journal and adds N presents with ordinary text (one recipient in twelve, a price, a
# note of about a hundred characters), then quits.
add_script() {
    printf 'setup Bench --kdf interactive\n%s\n%s\n' "$2" "$2"
    for ((i = 1; i <= $1; i++)); do
        printf 'add "Recipient %d" "A present with a realistic title %d" --price %d.50 --notes "Wrapped in blue paper, bought at the market on a Saturday morning; keep the receipt in the kitchen drawer."\n' \
            $((i % 12)) "$i" $((i % 90))
    done
    printf 'quit\n'
}
