<?php

declare(strict_types=1);

namespace Petrel\Http;

use Petrel\Http\Internal\FieldLines;

/**
 * A cookie to set (RFC 6265 §4.1). Safe defaults: Path=/, HttpOnly, SameSite=Lax. The value
 * is percent-encoded (rawurlencode), so any string round-trips through Request::getCookie().
 * A cookie that browsers would drop (SameSite=None or a "__Secure-"/"__Host-" name without
 * Secure, a "__Host-" one with a Domain or another Path) is a \ValueError.
 */
final readonly class Cookie
{
    public ?string $sameSite;

    /**
     * @param int|\DateTimeInterface|null $expires Unix timestamp or date; null for a session cookie
     * @param string|null $sameSite 'Lax', 'Strict', 'None' (needs $secure) or null to omit the attribute
     * @throws \ValueError for an invalid name, path, domain or SameSite, or a cookie browsers would drop
     */
    public function __construct(
        public string $name,
        public string $value = '',
        public int|\DateTimeInterface|null $expires = null,
        public ?int $maxAge = null,
        public ?string $path = '/',
        public ?string $domain = null,
        public bool $secure = false,
        public bool $httpOnly = true,
        ?string $sameSite = 'Lax',
    ) {
        if (!FieldLines::isToken($name)) {
            throw new \ValueError(\sprintf('Invalid cookie name "%s"', $name));
        }
        foreach (['path' => $path, 'domain' => $domain] as $attribute => $text) {
            if ($text !== null && (!FieldLines::isLineSafe($text) || \str_contains($text, ';'))) {
                throw new \ValueError(\sprintf('Invalid cookie %s "%s"', $attribute, $text));
            }
        }
        $this->sameSite = match ($sameSite === null ? null : \strtolower($sameSite)) {
            null => null,
            'lax' => 'Lax',
            'strict' => 'Strict',
            'none' => 'None',
            default => throw new \ValueError(\sprintf('Invalid SameSite value "%s"', $sameSite)),
        };
        self::checkBrowserRules($name, $path, $domain, $secure, $this->sameSite);
    }

    /**
     * A cookie that makes the browser delete $name (empty value, expired, Max-Age=0); Secure
     * for a "__Secure-" or "__Host-" name, which a browser takes only with it.
     */
    public static function expired(string $name, ?string $path = '/', ?string $domain = null): self
    {
        return new self($name, '', 1, 0, $path, $domain, self::hasSecurePrefix($name));
    }

    /** The value of a Set-Cookie header line. */
    public function toHeaderValue(): string
    {
        $line = $this->name . '=' . \rawurlencode($this->value);
        if ($this->expires !== null) {
            $timestamp = \is_int($this->expires) ? $this->expires : $this->expires->getTimestamp();
            $line .= '; Expires=' . \gmdate('D, d M Y H:i:s', $timestamp) . ' GMT';
        }
        if ($this->maxAge !== null) {
            $line .= '; Max-Age=' . $this->maxAge;
        }
        if ($this->path !== null) {
            $line .= '; Path=' . $this->path;
        }
        if ($this->domain !== null) {
            $line .= '; Domain=' . $this->domain;
        }
        if ($this->secure) {
            $line .= '; Secure';
        }
        if ($this->httpOnly) {
            $line .= '; HttpOnly';
        }
        if ($this->sameSite !== null) {
            $line .= '; SameSite=' . $this->sameSite;
        }

        return $line;
    }

    /**
     * Rules under which browsers drop a Set-Cookie without a word (RFC 6265bis §4.1.3,
     * §5.6.7): SameSite=None needs Secure; a "__Secure-" name needs Secure; a "__Host-"
     * name needs Secure, Path=/ and no Domain. Broken here, they fail where they are made.
     */
    private static function checkBrowserRules(string $name, ?string $path, ?string $domain, bool $secure, ?string $sameSite): void
    {
        if (!$secure && ($sameSite === 'None' || self::hasSecurePrefix($name))) {
            throw new \ValueError(\sprintf(
                'Cookie "%s" must be Secure (%s): browsers drop it otherwise',
                $name,
                $sameSite === 'None' ? 'SameSite=None' : 'its name prefix',
            ));
        }
        if (\strncasecmp($name, '__Host-', 7) === 0 && ($path !== '/' || $domain !== null)) {
            throw new \ValueError(\sprintf('Cookie "%s" must have Path=/ and no Domain: browsers drop it otherwise', $name));
        }
    }

    private static function hasSecurePrefix(string $name): bool
    {
        return \strncasecmp($name, '__Secure-', 9) === 0 || \strncasecmp($name, '__Host-', 7) === 0;
    }
}
