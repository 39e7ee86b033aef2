<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

/** DirectAttributes::directAttribute()'s "ask Twig": no value of an attribute can be it. */
enum AttributeMiss
{
    case Miss;
}
