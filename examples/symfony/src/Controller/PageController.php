<?php

declare(strict_types=1);

namespace App\Controller;

use App\Service\Greeter;
use Symfony\Bundle\FrameworkBundle\Controller\AbstractController;
use Symfony\Component\Form\Extension\Core\Type\SubmitType;
use Symfony\Component\Form\Extension\Core\Type\TextType;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

final class PageController extends AbstractController
{
    public function __construct(private readonly Greeter $greeter)
    {
    }

    public function home(): Response
    {
        return $this->render('home.html.twig', ['greeting' => $this->greeter->greet('Symfony on Petrel')]);
    }

    public function greet(Request $request): Response
    {
        $form = $this->createFormBuilder(['name' => ''])
            ->add('name', TextType::class, ['label' => 'Your name'])
            ->add('send', SubmitType::class, ['label' => 'Greet me'])
            ->getForm();
        $form->handleRequest($request);
        $greeting = null;
        if ($form->isSubmitted() && $form->isValid()) {
            $greeting = $this->greeter->greet((string) $form->get('name')->getData());
        }

        return $this->render('greet.html.twig', ['form' => $form, 'greeting' => $greeting]);
    }

    public function boom(): never
    {
        throw new \RuntimeException('Boom: this page fails on purpose');
    }
}
