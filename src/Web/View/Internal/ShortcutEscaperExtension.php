<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Environment;
use Twig\Extension\AbstractExtension;
use Twig\Extension\EscaperExtension;
use Twig\Runtime\EscaperRuntime;
use Twig\TwigFilter;

/**
 * Twig's `escape` and `e` filters (and so autoescaping, which uses `escape`) with a shortcut:
 * HTML-escaping a string that has nothing to escape returns it as it is. That is most of
 * what a page prints (names, ids, paths), and htmlspecialchars() would build a copy of it
 * character by character, about twice the cost of one regex test. Everything else goes to
 * Twig's EscaperRuntime, as without this extension: the output is the same.
 *
 * "Nothing to escape": ASCII without & < > " ' (htmlspecialchars() with ENT_QUOTES returns
 * such a string unchanged in UTF-8 and in any charset that extends ASCII, as all it
 * supports do; bytes >= 0x80 take the long way, for ENT_SUBSTITUTE), and a non-string that
 * is not an object (int, float, bool, null), which EscaperRuntime returns as it is for
 * 'html'. The charset is not asked on every call (a call costs as much as the test): View's
 * output is UTF-8, and its Environment's charset is not to be set to one that does not
 * extend ASCII (UTF-16, UTF-7), which no HTML page uses.
 *
 * A page prints the same short strings on every request (links, the site name, labels,
 * the signed-in user's name), and the regex test costs about 1,000 instructions even on
 * those: a short string that passed it is remembered, and found again with a hash lookup
 * (blog `GET /`: -3,300 instructions a request). At most 512 of at most 64 bytes, the
 * memory bounded like Response's checked header names; a string is remembered only after
 * it passed the test, so the memory can only shortcut what the test would have.
 *
 * The filters' callable is a method of this extension, so compiled templates call it
 * directly ($this->extensions[...]->escape(...)), and for HTML look the value up in the
 * remembered strings first, without the call (ShortcutEscapeExpression); they keep Twig's
 * is_safe rule, so what is escaped (and what is not escaped twice) does not change.
 *
 * @internal registered by View
 */
final class ShortcutEscaperExtension extends AbstractExtension
{
    /** A byte htmlspecialchars() might change: a special character or a non-ASCII byte. */
    private const NOT_PLAIN = '/[&<>"\'\x80-\xff]/';

    /** How many plain strings are remembered, and how long one may be. */
    private const PLAIN_MAX = 512;
    private const PLAIN_LENGTH = 64;

    /**
     * Short strings that passed the test. Public for the compiled templates, which look a
     * value up here before calling escape() (ShortcutEscapeExpression); only isPlain() writes.
     *
     * @var array<string, true>
     */
    public array $plain = [];
    private ?EscaperRuntime $runtime = null;

    public function __construct(private readonly Environment $twig)
    {
    }

    public function getFilters(): array
    {
        $options = ['is_safe_callback' => [EscaperExtension::class, 'escapeFilterIsSafe'], 'node_class' => ShortcutEscapeExpression::class];

        return [
            new TwigFilter('escape', [$this, 'escape'], $options),
            new TwigFilter('e', [$this, 'escape'], $options),
        ];
    }

    /** EscaperRuntime::escape()'s signature and result. */
    public function escape(mixed $value, string $strategy = 'html', ?string $charset = null, bool $autoescape = false): mixed
    {
        if ($strategy === 'html' && $charset === null
            && (\is_string($value) ? isset($this->plain[$value]) || $this->isPlain($value) : !\is_object($value))) {
            return $value;
        }
        $this->runtime ??= $this->twig->getRuntime(EscaperRuntime::class);

        return $this->runtime->escape($value, $strategy, $charset, $autoescape);
    }

    /** The regex test, remembered for a short string that passes it (a hash lookup next time). */
    private function isPlain(string $value): bool
    {
        if (\preg_match(self::NOT_PLAIN, $value) !== 0) {
            return false;
        }
        if (\strlen($value) <= self::PLAIN_LENGTH) {
            if (\count($this->plain) >= self::PLAIN_MAX) {
                $this->plain = []; // values from rows vary: start afresh rather than grow
            }
            $this->plain[$value] = true;
        }

        return true;
    }
}
