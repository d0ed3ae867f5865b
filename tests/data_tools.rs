//! `kestrel convert` and `kestrel datagen --format bullet` through the binary: text data in,
//! 32-byte training records out.

use kestrel::tools::data::PackedPosition;
use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kestrel-data-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn kestrel(args: &[&str]) -> (bool, String) {
    let run = Command::new(env!("CARGO_BIN_EXE_kestrel"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    (run.status.success(), text)
}

#[test]
fn convert_packs_every_good_line_in_order_and_names_the_bad_ones() {
    let sample = include_str!("data/selfplay-sample.txt");
    let input = scratch("convert-in.txt");
    let output = scratch("convert-out.bin");
    let mut text = String::from("# head-start sample with one damaged line\n");
    text.push_str(sample);
    text.push_str("8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5\n");
    std::fs::write(&input, &text).unwrap();
    let (ok, said) = kestrel(&["convert", input.to_str().unwrap(), output.to_str().unwrap()]);
    assert!(ok, "{said}");
    let lines = sample.lines().count();
    assert!(
        said.contains(&format!(":{}: skipped: bad FEN", lines + 2)),
        "{said}"
    );
    assert!(
        said.contains(&format!("{lines} records from {} lines", lines + 2)),
        "{said}"
    );
    let bytes = std::fs::read(&output).unwrap();
    assert_eq!(bytes.len(), 32 * lines);
    for (line, record) in sample.lines().zip(bytes.chunks_exact(32)) {
        assert_eq!(record, PackedPosition::parse_line(line).unwrap().as_bytes());
    }
    // A second run must not overwrite what the first wrote.
    let (ok, said) = kestrel(&["convert", input.to_str().unwrap(), output.to_str().unwrap()]);
    assert!(!ok && said.contains("exists"), "{said}");
    assert_eq!(std::fs::read(&output).unwrap(), bytes);
    let _ = std::fs::remove_file(input);
    let _ = std::fs::remove_file(output);
}

#[test]
fn datagen_writes_bullet_records_of_the_positions_it_writes_as_text() {
    let text = scratch("datagen.txt");
    let bullet = scratch("datagen.bin");
    let args = [
        "datagen",
        "--games",
        "2",
        "--nodes",
        "300",
        "--threads",
        "2",
    ];
    let (ok, said) = kestrel(&[&args[..], &["--out", text.to_str().unwrap()]].concat());
    assert!(ok, "{said}");
    let format = ["--format", "bullet", "--out", bullet.to_str().unwrap()];
    let (ok, said) = kestrel(&[&args[..], &format[..]].concat());
    assert!(ok, "{said}");
    let text_path = text;
    let text = std::fs::read_to_string(&text_path).unwrap();
    let records = std::fs::read(&bullet).unwrap();
    assert!(text.lines().count() > 10, "{text}");
    assert_eq!(records.len(), 32 * text.lines().count());
    for (line, record) in text.lines().zip(records.chunks_exact(32)) {
        let expected = PackedPosition::parse_line(line).unwrap();
        assert_eq!(record, expected.as_bytes(), "{line}");
        expected.validate().unwrap();
    }
    let _ = std::fs::remove_file(text_path);
    let _ = std::fs::remove_file(bullet);
}
