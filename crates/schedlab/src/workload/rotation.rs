//! Round-robin hand-out over workers, as schbench's RPS loops do it (`cur_tid` or the
//! worker index carries over from one round to the next), unrolled over one full turn so
//! a program can loop it.

/// The workers each round hands to, for as many rounds as it takes to come back to
/// worker 0 at the start of a round; `Err(posts)` when that is more than `limit` posts.
pub fn one_turn(per_round: u64, workers: u64, limit: u64) -> Result<Vec<Vec<u64>>, u64> {
    let rounds = workers / gcd(per_round % workers, workers).max(1);
    let posts = rounds.saturating_mul(per_round);
    if posts > limit {
        return Err(posts);
    }
    let mut cur = 0u64;
    Ok((0..rounds)
        .map(|_| {
            (0..per_round)
                .map(|_| {
                    let w = cur % workers;
                    cur += 1;
                    w
                })
                .collect()
        })
        .collect())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::one_turn;

    #[test]
    fn six_of_ten_come_back_after_five_rounds() {
        let t = one_turn(6, 10, 100).unwrap();
        assert_eq!(t.len(), 5);
        assert_eq!(t[0], vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(t[1], vec![6, 7, 8, 9, 0, 1]);
        assert_eq!(t[4], vec![4, 5, 6, 7, 8, 9]);
        assert_eq!(one_turn(10, 5, 100).unwrap().len(), 1);
        assert_eq!(one_turn(7, 1000, 100), Err(7000));
    }
}
