# Training workload of the perl interpreter in the PGO suite
# (bench/pgo/perl.sh): small programs of the kinds a test suite runs, none
# of them the timed ones (pl_time.pl).  Core language only, no modules.
# Usage: perl pl_train.pl N

# --- an expression tokenizer, parser and evaluator (regexes, recursion)
sub tokenize {
    my ($src) = @_;
    my @toks;
    while ($src =~ /\G\s*(?:(\d+)|([A-Za-z_]\w*)|(\S))/gc) {
        if (defined $1)    { push @toks, ['num', $1 + 0] }
        elsif (defined $2) { push @toks, ['name', $2] }
        else               { push @toks, ['op', $3] }
    }
    return \@toks;
}

sub parse_expr {
    my ($t, $pos, $env) = @_;
    my ($v, $p) = parse_term($t, $pos, $env);
    while ($p < @$t && $t->[$p][0] eq 'op' && ($t->[$p][1] eq '+' || $t->[$p][1] eq '-')) {
        my $op = $t->[$p][1];
        my ($r, $q) = parse_term($t, $p + 1, $env);
        $v = $op eq '+' ? $v + $r : $v - $r;
        $p = $q;
    }
    return ($v, $p);
}

sub parse_term {
    my ($t, $pos, $env) = @_;
    my ($v, $p) = parse_atom($t, $pos, $env);
    while ($p < @$t && $t->[$p][0] eq 'op' && ($t->[$p][1] eq '*' || $t->[$p][1] eq '%')) {
        my $op = $t->[$p][1];
        my ($r, $q) = parse_atom($t, $p + 1, $env);
        $v = $op eq '*' ? $v * $r : ($r ? $v % $r : 0);
        $p = $q;
    }
    return ($v, $p);
}

sub parse_atom {
    my ($t, $pos, $env) = @_;
    my ($kind, $val) = @{ $t->[$pos] };
    if ($kind eq 'num')  { return ($val, $pos + 1) }
    if ($kind eq 'name') { return ($env->{$val} // 0, $pos + 1) }
    if ($val eq '(') {
        my ($v, $p) = parse_expr($t, $pos + 1, $env);
        return ($v, $p + 1);
    }
    if ($val eq '-') {
        my ($v, $p) = parse_atom($t, $pos + 1, $env);
        return (-$v, $p);
    }
    die "bad token $val";
}

sub expressions {
    my ($n) = @_;
    my %env = (a => 3, b => 7, c => 11, width => 40, height => 25);
    my @src = ('a * (b + c) - 4 % 3', '(width + height) * 2 - a', 'b * b - 4 * a * c',
               '-(a + b) * (c - width % 7)', '1 + 2 * 3 + 4 * (5 + 6 * (7 + 8))');
    my $sum = 0;
    for my $i (1 .. $n) {
        $env{a} = $i % 17;
        for my $s (@src) {
            my ($v) = parse_expr(tokenize($s), 0, \%env);
            $sum += $v;
        }
    }
    return $sum;
}

# --- word counts over generated text (hashes, split, lc, sort by value)
sub word_counts {
    my ($n) = @_;
    my @words = qw(the quick brown fox jumps over lazy dog perl hash regex
                   string sort closure object method package bless scalar array);
    my %count;
    my $seed = 42;
    for my $line (1 .. $n) {
        my @w;
        for (1 .. 12) {
            $seed = ($seed * 1103515245 + 12345) % 2147483648;
            my $x = $words[$seed % @words];
            $x = ucfirst $x if $seed & 64;
            push @w, $x;
        }
        my $text = join(' ', @w) . '.';
        for my $tok (split /[\s.,]+/, $text) {
            $count{lc $tok}++;
        }
    }
    my @top = sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count;
    return join(',', map { "$_=$count{$_}" } @top[0 .. 4]);
}

# --- a small class hierarchy (bless, method calls, SUPER, accessors)
package Shape;
sub new { my ($class, %a) = @_; return bless {%a}, $class }
sub name { return ref $_[0] }
sub describe { my $s = shift; return sprintf('%s area=%.2f', $s->name, $s->area) }

package Rect;
our @ISA = ('Shape');
sub area { return $_[0]{w} * $_[0]{h} }

package Square;
our @ISA = ('Rect');
sub new { my ($class, %a) = @_; return Shape::new($class, w => $a{side}, h => $a{side}) }

package Circle;
our @ISA = ('Shape');
sub area { return 3.14159265 * $_[0]{r} ** 2 }
sub describe { my $s = shift; return $s->SUPER::describe() . " r=$s->{r}" }

package main;

sub shapes {
    my ($n) = @_;
    my ($total, $len) = (0, 0);
    for my $i (1 .. $n) {
        my @s = (Rect->new(w => $i % 9 + 1, h => 3), Square->new(side => $i % 5 + 1),
                 Circle->new(r => $i % 4 + 1));
        for my $s (@s) {
            $total += $s->area;
            $len += length $s->describe;
        }
    }
    return sprintf('%.1f/%d', $total, $len);
}

# --- closures: counters, a memoized function, callbacks
sub make_counter { my $c = shift; return sub { return $c += shift // 1 } }

sub closures {
    my ($n) = @_;
    my @ctr = map { make_counter($_) } 1 .. 8;
    my %memo;
    my $fib;
    $fib = sub { my $k = shift; return $k < 2 ? $k : ($memo{$k} //= $fib->($k - 1) + $fib->($k - 2)) };
    my $s = 0;
    for my $i (1 .. $n) {
        $s += $ctr[$i % 8]->($i & 3);
        %memo = () if $i % 50 == 0;
        $s += $fib->(30) % 1000;
    }
    return $s;
}

# --- string edits: tr, substr, index, reverse, s///g, sprintf
sub strings {
    my ($n) = @_;
    my $acc = 0;
    for my $i (1 .. $n) {
        my $s = sprintf('record-%05d:%s:%x', $i, 'abcdefghij' x 3, $i * 7);
        (my $u = $s) =~ tr/a-z/A-Z/;
        my $p = index($u, 'GHI');
        substr($u, $p, 3) = 'xyz' if $p >= 0;
        $u =~ s/([A-F])/lc $1/ge;
        my $r = reverse $u;
        $acc += length($r) + ($r =~ tr/x//) + ord(substr($r, $i % length $r, 1));
    }
    return $acc;
}

# --- a heap-based priority queue and a sieve (arrays, integer loops)
sub heap_and_sieve {
    my ($n) = @_;
    my @h;
    my $seed = 7;
    for (1 .. $n) {
        $seed = ($seed * 69069 + 1) % 4294967296;
        push @h, $seed % 100000;
        my $i = $#h;
        while ($i > 0) {
            my $p = int(($i - 1) / 2);
            last if $h[$p] <= $h[$i];
            @h[$p, $i] = @h[$i, $p];
            $i = $p;
        }
    }
    my $out = 0;
    while (@h) {
        my $top = $h[0];
        my $last = pop @h;
        if (@h) {
            $h[0] = $last;
            my $i = 0;
            while (1) {
                my ($l, $r, $m) = (2 * $i + 1, 2 * $i + 2, $i);
                $m = $l if $l < @h && $h[$l] < $h[$m];
                $m = $r if $r < @h && $h[$r] < $h[$m];
                last if $m == $i;
                @h[$m, $i] = @h[$i, $m];
                $i = $m;
            }
        }
        $out = ($out + $top) % 1000003;
    }
    my @sieve = (1) x ($n * 4);
    my $primes = 0;
    for my $i (2 .. $#sieve) {
        next unless $sieve[$i];
        $primes++;
        for (my $j = $i * $i; $j < @sieve; $j += $i) { $sieve[$j] = 0 }
    }
    return "$out/$primes";
}

my $n = shift // 1;
my @r;
for (1 .. $n) {
    @r = (expressions(800), word_counts(1500), shapes(3000), closures(5000),
          strings(4000), heap_and_sieve(8000));
}
print join(' ', @r), "\n";
